package api

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// sinkWriter is a ResponseWriter that keeps only the status, the headers
// and the body's length, and can be reused: what a request allocates is
// then the server's own.
type sinkWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *sinkWriter) Header() http.Header { return w.h }
func (w *sinkWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *sinkWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}
func (w *sinkWriter) reset() { clear(w.h); w.status, w.n = 0, 0 }

// hotAllocBounds are the allocations a hot map answer may make in the
// server, its access line written: 6, 4 and 7 when they were set (9, 7
// and 10 before the request id's header value, the compressing writer and
// the id the log handler reads were kept in the request's state; 16, 14
// and 17 before the request's id, logger, slot and deadline were one
// struct in one context, the /v1 steps one step and the access line's
// fields one group; 24, 22 and 27, without the access line, before the
// request deadline started its timer only when waited on, the version was
// kept with the answer, the query's fingerprint was made only for a
// cursor and the first steps were one; 44, 30 and 37 before the header
// values were made once and the query read without a map), with room for
// one more from gin's or net/http's own changes. A new allocation per
// request on this path costs every map screen: raise a bound only
// knowingly.
var hotAllocBounds = map[string]float64{"nearby20/kept": 7, "tile": 5, "nearby20/304": 8}

// hotServer serves map reads from memory, logging its access lines as
// main does (to nowhere); it returns the hot nearby URL
// and the ETag of its answer, which the server now keeps.
func hotServer(tb testing.TB) (s *Server, nearby, tag string) {
	return hotServerLogging(tb, slog.New(guidepost.NewLogHandler(io.Discard, true, nil)).With("service", "api"))
}

func hotServerLogging(tb testing.TB, log *slog.Logger) (s *Server, nearby, tag string) {
	store := newMemoryGuides()
	svc := guides.New(guides.Deps{Store: store, Clock: guidepost.SystemClock{}, Stamps: store},
		guides.Config{CursorKey: guides.CursorKey("bench-cursor-key-of-32-bytes-long")})
	s = New(Deps{Log: log, Registry: prometheus.NewRegistry(), Guides: svc}, Config{})
	nearby = "/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000&limit=20"
	first := httptest.NewRecorder()
	s.Handler().ServeHTTP(first, httptest.NewRequest("GET", nearby, nil))
	if tag = first.Header().Get("ETag"); tag == "" {
		tb.Fatalf("GET %s: %d without an ETag", nearby, first.Code)
	}
	return s, nearby, tag
}

// The access line main's logger writes from its template is the line
// slog writes for the record, in both formats, for a hot answer and for
// one whose path slog must quote or escape (written by slog then).
func TestAccessLineIsSlogs(t *testing.T) {
	volatile := regexp.MustCompile(`"time":"[^"]*"|"took":[0-9]+|time=[^ ]+|took=[^ ]+`)
	for _, json := range []bool{true, false} {
		var fast, slow bytes.Buffer
		slowHandler := slog.Handler(slog.NewTextHandler(&slow, nil))
		if json {
			slowHandler = slog.NewJSONHandler(&slow, nil)
		}
		fastServer, nearby, _ := hotServerLogging(t, slog.New(guidepost.NewLogHandler(&fast, json, nil)).With("service", "api"))
		slowServer, _, _ := hotServerLogging(t, slog.New(guidepost.LogHandler(slowHandler)).With("service", "api"))
		for _, path := range []string{nearby, "/v1/tiles/14/13970/6344.mvt", `/v1/guides/a%20"b"`} {
			fast.Reset()
			slow.Reset()
			for _, s := range []*Server{fastServer, slowServer} {
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set("X-Request-ID", "access-1")
				s.Handler().ServeHTTP(httptest.NewRecorder(), req)
			}
			got, want := volatile.ReplaceAllString(fast.String(), "…"), volatile.ReplaceAllString(slow.String(), "…")
			if got != want || !strings.Contains(got, "access-1") {
				t.Errorf("json %v, GET %s:\ntemplate %s\nslog     %s", json, path, got, want)
			}
		}
	}
}

// The hot map answers: the kept nearby answer, a tile the store holds,
// and a revalidation. Each must be what a client expects (status, ETag,
// Content-Length) and allocate no more than its bound.
func TestHotMapAnswersAllocate(t *testing.T) {
	s, nearby, tag := hotServer(t)
	cases := []struct {
		name, path, inm string
		status          int
	}{
		{"nearby20/kept", nearby, "", http.StatusOK},
		{"tile", "/v1/tiles/14/13970/6344.mvt", "", http.StatusOK},
		{"nearby20/304", nearby, tag, http.StatusNotModified},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.path, nil)
			if tc.inm != "" {
				req.Header.Set("If-None-Match", tc.inm)
			}
			w := &sinkWriter{h: http.Header{}}
			serve := func() {
				w.reset()
				s.Handler().ServeHTTP(w, req)
			}
			serve()
			if w.status != tc.status || w.h.Get("ETag") == "" || w.h.Get("X-Request-Id") == "" {
				t.Fatalf("GET %s: %d, headers %v", tc.path, w.status, w.h)
			}
			if tc.status == http.StatusOK && w.h.Get("Content-Length") != strconv.Itoa(w.n) {
				t.Fatalf("GET %s: Content-Length %q for %d bytes", tc.path, w.h.Get("Content-Length"), w.n)
			}
			if raceBuild {
				t.Skip("the race detector allocates on its own")
			}
			got := testing.AllocsPerRun(200, serve)
			t.Logf("%s: %.0f allocations per request", tc.name, got)
			if got > hotAllocBounds[tc.name] {
				t.Errorf("%s: %.0f allocations per request, bound %.0f", tc.name, got, hotAllocBounds[tc.name])
			}
		})
	}
}

// BenchmarkHotMapAnswers: the hot map answers of TestHotMapAnswersAllocate
// with the request and the writer reused, so the profile shows the
// server's own work and not httptest's.
//
//	go test ./api -run '^$' -bench HotMapAnswers -benchmem -cpuprofile cpu.out
func BenchmarkHotMapAnswers(b *testing.B) {
	s, nearby, tag := hotServer(b)
	for _, tc := range []struct{ name, path, inm string }{
		{"nearby20/kept", nearby, ""}, {"tile", "/v1/tiles/14/13970/6344.mvt", ""}, {"nearby20/304", nearby, tag},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", tc.path, nil)
			if tc.inm != "" {
				req.Header.Set("If-None-Match", tc.inm)
			}
			w := &sinkWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				s.Handler().ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkHotMapFloor is BenchmarkHotMapAnswers's floor, measured the
// same way: the answers' bytes served as tools/floorbench's floor serves
// them (gin's c.Data with the API's headers and a fresh request id), so
// the API's cost over the floor is the difference of the two.
//
//	go test ./api -run '^$' -bench 'HotMap(Answers|Floor)' -benchmem
func BenchmarkHotMapFloor(b *testing.B) {
	s, nearby, _ := hotServer(b)
	floor := gin.New()
	for _, tc := range []struct{ name, path string }{{"nearby20/kept", nearby}, {"tile", "/v1/tiles/14/13970/6344.mvt"}} {
		answer := httptest.NewRecorder()
		s.Handler().ServeHTTP(answer, httptest.NewRequest("GET", tc.path, nil))
		route, _, _ := strings.Cut(tc.path, "?")
		floor.GET(route, func(c *gin.Context) {
			h := c.Writer.Header()
			for _, k := range []string{"Cache-Control", "Etag", "Vary"} {
				h[k] = answer.Header()[k]
			}
			id := make([]byte, 12)
			rand.Read(id)
			h["X-Request-Id"] = []string{hex.EncodeToString(id)}
			c.Data(http.StatusOK, answer.Header().Get("Content-Type"), answer.Body.Bytes())
		})
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", tc.path, nil)
			w := &sinkWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				floor.ServeHTTP(w, req)
			}
		})
	}
}
