package testkit

import (
	"bufio"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// SSEEvent is one event of a text/event-stream, or a comment (Name ":").
type SSEEvent struct {
	ID, Name, Data string
	At             time.Time // when the blank line ending it arrived
}

// SSE reads a text/event-stream answer on a goroutine that the test's
// cleanup stops and joins.
type SSE struct {
	t      testing.TB
	Resp   *http.Response
	events chan SSEEvent
	stop   chan struct{}
}

// OpenSSE sends req; the answer must be 200 text/event-stream.
func OpenSSE(t testing.TB, req *http.Request) *SSE {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		t.Fatalf("%s %s: %d %q", req.Method, req.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &SSE{t: t, Resp: resp, events: make(chan SSEEvent, 100), stop: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(s.read)
	t.Cleanup(func() { close(s.stop); resp.Body.Close(); wg.Wait() })
	return s
}

func (s *SSE) read() {
	defer close(s.events)
	emit := func(e SSEEvent) bool {
		e.At = time.Now()
		select {
		case s.events <- e:
			return true
		case <-s.stop:
			return false
		}
	}
	sc := bufio.NewScanner(s.Resp.Body)
	var ev SSEEvent
	for sc.Scan() {
		line := sc.Text()
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			if ev.Name != "" || ev.Data != "" {
				if !emit(ev) {
					return
				}
			}
			ev = SSEEvent{}
		case field == "":
			if !emit(SSEEvent{Name: ":", Data: value}) {
				return
			}
		case field == "id":
			ev.ID = value
		case field == "event":
			ev.Name = value
		case field == "data":
			ev.Data += value
		}
	}
}

// Next returns the next event that is not a comment.
func (s *SSE) Next(within time.Duration) SSEEvent {
	s.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatal("the stream ended")
			}
			if ev.Name != ":" {
				return ev
			}
		case <-deadline:
			s.t.Fatalf("no event within %s", within)
		}
	}
}

// Comments drains what has arrived and counts the comments in it.
func (s *SSE) Comments() int {
	n := 0
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return n
			}
			if ev.Name == ":" {
				n++
			}
		default:
			return n
		}
	}
}

// Quiet fails the test if an event other than a comment comes within d.
func (s *SSE) Quiet(d time.Duration) {
	s.t.Helper()
	s.drain(d, func(ev SSEEvent) { s.t.Fatalf("unexpected event %+v", ev) })
}

// Ended reports whether the stream ends within d.
func (s *SSE) Ended(d time.Duration) bool { return s.drain(d, func(SSEEvent) {}) }

// drain reads until the stream ends (true) or d passes (false), handing
// every event but comments to onEvent.
func (s *SSE) drain(d time.Duration, onEvent func(SSEEvent)) bool {
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return true
			}
			if ev.Name != ":" {
				onEvent(ev)
			}
		case <-deadline:
			return false
		}
	}
}
