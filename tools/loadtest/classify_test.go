package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestClassifyStatus(t *testing.T) {
	cases := map[int]failKind{200: failNone, 201: failNone, 202: failNone, 204: failNone,
		301: failOther, 400: fail4xx, 404: fail4xx, 409: fail4xx, 429: fail4xx,
		500: fail5xx, 502: fail5xx, 503: fail5xx, 504: fail5xx}
	for code, want := range cases {
		if got := classify(code, nil); got != want {
			t.Errorf("classify(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestClassifyErrors(t *testing.T) {
	cases := []struct {
		err  error
		want failKind
	}{
		{context.DeadlineExceeded, failTimeout},
		{fmt.Errorf("wrapped: %w", context.Canceled), failCanceled},
		{io.ErrUnexpectedEOF, failConn},
		{errors.New("something odd"), failOther},
	}
	for _, c := range cases {
		if got := classify(0, c.err); got != c.want {
			t.Errorf("classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// Real transport errors, not hand-made ones: a closed port and a server
// slower than the client's timeout.
func TestClassifyRealTransportErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	hc := &http.Client{Timeout: 100 * time.Millisecond}
	_, err = hc.Get("http://" + closed + "/")
	if got := classify(0, err); got != failRefused {
		t.Errorf("closed port: %q (%v), want connection_refused", got, err)
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	_, err = hc.Get(slow.URL)
	if got := classify(0, err); got != failTimeout {
		t.Errorf("slow server: %q (%v), want timeout", got, err)
	}

	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close()
	}))
	defer hangup.Close()
	_, err = hc.Get(hangup.URL)
	if got := classify(0, err); got != failConn {
		t.Errorf("hang-up: %q (%v), want connection_error", got, err)
	}
}

func TestMayHaveApplied(t *testing.T) {
	cases := []struct {
		code int
		fk   failKind
		want bool
	}{
		{200, failNone, true}, {0, failRefused, false}, {404, fail4xx, false}, {429, fail4xx, false},
		{503, fail5xx, false}, {500, fail5xx, true}, {0, failTimeout, true}, {0, failConn, true},
	}
	for _, c := range cases {
		if got := mayHaveApplied(c.code, c.fk); got != c.want {
			t.Errorf("mayHaveApplied(%d, %q) = %v, want %v", c.code, c.fk, got, c.want)
		}
	}
}
