package api

import (
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

func TestShedderAnswers503WhenFull(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), MaxInflight: 1, QueueWait: 50 * time.Millisecond})
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	s.engine.GET("/v1/slow", s.shed.handler, func(c *gin.Context) {
		once.Do(func() { close(entered) })
		<-release
		c.Status(204)
	})
	var wg sync.WaitGroup
	var released sync.Once
	finishFirst := func() { released.Do(func() { close(release) }); wg.Wait() }
	defer finishFirst() // a failed check still lets the first request end
	first := httptest.NewRecorder()
	wg.Go(func() { s.Handler().ServeHTTP(first, httptest.NewRequest("GET", "/v1/slow", nil)) })
	<-entered
	start := time.Now()
	second := httptest.NewRecorder()
	s.Handler().ServeHTTP(second, httptest.NewRequest("GET", "/v1/slow", nil))
	if second.Code != 503 || second.Header().Get("Retry-After") == "" {
		t.Fatalf("second request: %d %v", second.Code, second.Header())
	}
	if took := time.Since(start); took < 40*time.Millisecond || took > time.Second {
		t.Fatalf("shed after %s, want about the queue wait", took)
	}
	finishFirst()
	if first.Code != 204 {
		t.Fatalf("first request: %d", first.Code)
	}
	// The slot is free again.
	third := httptest.NewRecorder()
	s.Handler().ServeHTTP(third, httptest.NewRequest("GET", "/v1/slow", nil))
	if third.Code != 204 {
		t.Fatalf("after release: %d", third.Code)
	}
}
