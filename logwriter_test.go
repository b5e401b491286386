package guidepost_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

// recorder is an io.Writer that keeps what it got and counts the calls.
type recorder struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	return r.b.Write(p)
}

func (r *recorder) got() (string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String(), r.writes
}

// Lines logged from many goroutines, some while the writer closes and
// some after, all reach the output once, each goroutine's in order.
func TestLogWriterLosesNoLineAtClose(t *testing.T) {
	out := &recorder{}
	w := guidepost.NewLogWriter(out, time.Hour, 4096) // no flush by time: only a full buffer and Close
	log := slog.New(slog.NewTextHandler(w, nil))
	const writers, lines = 8, 300
	var wg sync.WaitGroup
	half := make(chan struct{})
	var halfOnce sync.WaitGroup
	halfOnce.Add(writers)
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				if i == lines/2 {
					halfOnce.Done()
				}
				if g%2 == 0 && i == lines/2 {
					<-half // these finish after Close
				}
				log.Info("line", "g", g, "i", i)
			}
		})
	}
	halfOnce.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	close(half)
	wg.Wait()
	text, _ := out.got()
	next := make([]int, writers)
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		var g, i int
		if _, err := fmt.Sscanf(strings.ReplaceAll(l[strings.Index(l, " g=")+1:], "=", " "), "g %d i %d", &g, &i); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if i != next[g] {
			t.Fatalf("writer %d: line %d after line %d", g, i, next[g]-1)
		}
		next[g]++
	}
	for g, n := range next {
		if n != lines {
			t.Errorf("writer %d: %d lines of %d reached the output", g, n, lines)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Lines wait in the buffer until it fills (one write for many lines), and
// a line alone goes out within the interval without Close.
func TestLogWriterBatchesAndFlushesOnItsOwn(t *testing.T) {
	out := &recorder{}
	w := guidepost.NewLogWriter(out, time.Hour, 1024)
	line := strings.Repeat("x", 99) + "\n"
	for range 10 {
		w.Write([]byte(line))
	}
	if _, n := out.got(); n != 0 {
		t.Fatalf("%d writes for 1000 bytes under a 1024-byte buffer", n)
	}
	w.Write([]byte(line))
	if text, n := out.got(); n != 1 || len(text) != 1100 {
		t.Fatalf("a full buffer: %d writes, %d bytes; want 1 and 1100", n, len(text))
	}
	w.Close()

	out = &recorder{}
	w = guidepost.NewLogWriter(out, 10*time.Millisecond, 1024)
	defer w.Close()
	w.Write([]byte(line))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if text, _ := out.got(); text == line {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a lone line was not flushed by time")
		}
	}
}
