package api

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
)

func TestShedderAnswers503WhenFull(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{MaxInflight: 1, QueueWait: 50 * time.Millisecond})
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

// Far more cheap requests than slots arrive at once: they queue and all
// are served, none shed.
func TestShedderQueuesCheapRequestsBeyondTheLimit(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: reg}, Config{MaxInflight: 4, QueueWait: 5 * time.Second})
	s.engine.GET("/v1/cheap", s.shed.handler, func(c *gin.Context) {
		time.Sleep(time.Millisecond)
		c.Status(204)
	})
	const n = 400
	codes := make([]int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/v1/cheap", nil))
			codes[i] = rec.Code
		})
	}
	close(start)
	wg.Wait()
	for i, code := range codes {
		if code != 204 {
			t.Fatalf("request %d: %d", i, code)
		}
	}
	if s.shed.waiting.Load() != 0 || len(s.shed.slots) != 0 {
		t.Fatalf("left %d waiting, %d slots taken", s.shed.waiting.Load(), len(s.shed.slots))
	}
}

// Once requests are known to hold a slot long, a request whose predicted
// wait passes the target is refused on arrival, not after waiting it out.
func TestShedderRefusesAtOnceWhenTheWaitWouldPassTheTarget(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{MaxInflight: 1, QueueWait: 400 * time.Millisecond})
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	s.engine.GET("/v1/slow", s.shed.handler, func(c *gin.Context) {
		entered <- struct{}{}
		<-release
		c.Status(204)
	})
	serve := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/v1/slow", nil))
		return rec
	}
	// One request that holds its slot a second: the mean slot time.
	var wg sync.WaitGroup
	wg.Go(func() { serve() })
	<-entered
	time.Sleep(time.Second)
	release <- struct{}{}
	wg.Wait()
	// The slot taken again; the next request would wait about a second.
	wg.Go(func() { serve() })
	<-entered
	start := time.Now()
	rec := serve()
	took := time.Since(start)
	release <- struct{}{}
	wg.Wait()
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("queued request: %d %v", rec.Code, rec.Header())
	}
	if took > 200*time.Millisecond {
		t.Fatalf("refused after %s: waited instead of refusing on arrival", took)
	}
}

// A handler that gives its slot back (a like waiting for its group
// commit) lets the next request in while it still waits.
func TestShedderSlotGivenBackServesTheNext(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{MaxInflight: 1, QueueWait: 50 * time.Millisecond})
	release := make(chan struct{})
	entered := make(chan struct{})
	s.engine.GET("/v1/waits", s.shed.handler, func(c *gin.Context) {
		releaseSlot(c)
		releaseSlot(c) // twice is once
		close(entered)
		<-release
		c.Status(204)
	})
	s.engine.GET("/v1/quick", s.shed.handler, func(c *gin.Context) { c.Status(204) })
	var wg sync.WaitGroup
	first := httptest.NewRecorder()
	wg.Go(func() { s.Handler().ServeHTTP(first, httptest.NewRequest("GET", "/v1/waits", nil)) })
	<-entered
	second := httptest.NewRecorder()
	s.Handler().ServeHTTP(second, httptest.NewRequest("GET", "/v1/quick", nil))
	close(release)
	wg.Wait()
	if first.Code != 204 || second.Code != 204 {
		t.Fatalf("waiting request %d, next request %d; want both 204", first.Code, second.Code)
	}
	if n := len(s.shed.slots); n != 0 {
		t.Fatalf("%d slots still held", n)
	}
}

// slowLimiter stands for a rate limiter whose store is slow to answer:
// Take waits for release, after saying it was entered.
type slowLimiter struct{ entered, release chan struct{} }

func (l slowLimiter) Take(context.Context, string, guidepost.Rate, int) guidepost.RateResult {
	close(l.entered)
	<-l.release
	return guidepost.RateResult{Allowed: true, Remaining: 1}
}

// instantLikes answers likes at once.
type instantLikes struct{ GuideService }

func (instantLikes) Like(context.Context, string, guides.Liker) (guides.LikeState, error) {
	return guides.LikeState{Liked: true, LikeCount: 1}, nil
}

// A like waiting on its rate limit's Redis call holds no slot: with one
// slot, the next request is served meanwhile instead of being shed.
func TestALikesRateLimitHoldsNoSlot(t *testing.T) {
	clock := guidepost.SystemClock{}
	tokens := auth.NewTokens(strings.Repeat("k", 32), time.Hour, clock)
	lim := slowLimiter{entered: make(chan struct{}), release: make(chan struct{})}
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), Clock: clock,
		Auth: auth.New(auth.Deps{Tokens: tokens, Clock: clock}, auth.Config{}), Guides: instantLikes{}, Limiter: lim},
		Config{MaxInflight: 1, QueueWait: 50 * time.Millisecond, Rates: Rates{Like: guidepost.Rate{Name: "like", Count: 10, Period: time.Minute}}})
	token, err := tokens.Issue(uuid.NewString(), uuid.NewString())
	if err != nil {
		t.Fatal(err)
	}
	like := httptest.NewRequest("PUT", "/v1/guides/"+uuid.NewString()+"/like", nil)
	like.Header.Set("Authorization", "Bearer "+token)
	liked := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { defer close(done); s.Handler().ServeHTTP(liked, like) }()
	select {
	case <-lim.entered:
	case <-done:
		t.Fatalf("the like was answered %d before its rate limit: %s", liked.Code, liked.Body)
	}
	next := httptest.NewRecorder()
	s.Handler().ServeHTTP(next, httptest.NewRequest("GET", "/v1/about", nil))
	close(lim.release)
	<-done
	if next.Code != 200 || liked.Code != 200 {
		t.Errorf("next request %d, like %d; want both 200", next.Code, liked.Code)
	}
	if n := len(s.shed.slots); n != 0 {
		t.Errorf("%d slots still held", n)
	}
}
