package ratelimit_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/ratelimit"
)

func TestTakeSpendsRefusesAndGivesBack(t *testing.T) {
	l := ratelimit.New(ratelimit.Deps{Client: testkit.RedisClient(t, testkit.RedisURL(t, testkit.RedisDBRateLimit))}, ratelimit.Config{})
	ctx := context.Background()
	rate := guidepost.Rate{Name: "test", Count: 3, Period: time.Minute}
	for i := range 3 {
		if res := l.Take(ctx, "a", rate, 1); !res.Allowed || res.Remaining != 2-i {
			t.Fatalf("event %d: %+v", i, res)
		}
	}
	res := l.Take(ctx, "a", rate, 1)
	if res.Allowed || res.RetryAfter < 15*time.Second || res.RetryAfter > 20*time.Second || res.ResetAfter < 55*time.Second {
		t.Fatalf("4th event of 3/min: %+v (want refused, retry in ~20 s, reset in ~60 s)", res)
	}
	if other := l.Take(ctx, "b", rate, 1); !other.Allowed {
		t.Fatalf("another key shares the count: %+v", other)
	}
	if back := l.Take(ctx, "a", rate, -1); !back.Allowed {
		t.Fatalf("giving back: %+v", back)
	}
	if again := l.Take(ctx, "a", rate, 1); !again.Allowed || again.Remaining != 0 {
		t.Fatalf("after giving one back: %+v", again)
	}
}

// An event taken from an empty bucket and given back leaves it empty: a
// hold that succeeds (auth's log-in guards) never uses up the allowance.
func TestGivingBackTheOnlyEventEmptiesTheBucket(t *testing.T) {
	l := ratelimit.New(ratelimit.Deps{Client: testkit.RedisClient(t, testkit.RedisURL(t, testkit.RedisDBRateLimit))}, ratelimit.Config{})
	ctx := context.Background()
	rate := guidepost.Rate{Name: "giveback", Count: 2, Period: time.Hour}
	key := fmt.Sprintf("k%d", time.Now().UnixNano())
	for i := range 5 {
		if res := l.Take(ctx, key, rate, 1); !res.Allowed || res.Remaining != 1 {
			t.Fatalf("hold %d: %+v, want allowed with 1 remaining", i, res)
		}
		l.Take(ctx, key, rate, -1)
	}
}

// Two limiters on one Redis (two API processes) share one count, and a
// burst from many goroutines never gets more than the allowance.
func TestProcessesShareOneCount(t *testing.T) {
	url := testkit.RedisURL(t, testkit.RedisDBRateLimit)
	a := ratelimit.New(ratelimit.Deps{Client: testkit.RedisClient(t, url)}, ratelimit.Config{})
	b := ratelimit.New(ratelimit.Deps{Client: testkit.RedisClient(t, url)}, ratelimit.Config{})
	rate := guidepost.Rate{Name: "burst", Count: 20, Period: time.Hour}
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for i := range 100 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Go(func() {
			if l.Take(context.Background(), "k", rate, 1).Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if allowed != 20 {
		t.Fatalf("%d of 100 allowed, want exactly 20", allowed)
	}
}

// With Redis gone every request is let through at once, counted, and the
// outage is logged once, not once per request; Redis back, limits hold
// again.
func TestRedisDownFailsOpenAndLogsOnce(t *testing.T) {
	srv := testkit.StartRedis(t)
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	l := ratelimit.New(ratelimit.Deps{Client: testkit.RedisClient(t, srv.URL), Registerer: reg, Log: slog.New(slog.NewTextHandler(&logs, nil))},
		ratelimit.Config{Backoff: 50 * time.Millisecond, LogEvery: time.Hour})
	ctx := context.Background()
	rate := guidepost.Rate{Name: "down", Count: 1, Period: time.Hour}
	if !l.Take(ctx, "k", rate, 1).Allowed || l.Take(ctx, "k", rate, 1).Allowed {
		t.Fatal("with Redis up, 1/h must allow one and refuse the next")
	}
	srv.Stop()
	start := time.Now()
	for i := range 200 {
		if !l.Take(ctx, fmt.Sprint("open-", i), rate, 1).Allowed {
			t.Fatalf("request %d refused while Redis is down", i)
		}
		if i%50 == 0 {
			time.Sleep(60 * time.Millisecond) // past the back-off: Redis is tried again
		}
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("200 requests took %v with Redis down: the limiter must not wait on it", took)
	}
	if n := counter(t, reg, "guidepost_ratelimit_fail_open_total"); n != 200 {
		t.Errorf("fail-open counter %v, want 200", n)
	}
	if n := strings.Count(logs.String(), "letting requests through"); n != 1 {
		t.Errorf("%d fail-open log lines, want 1:\n%s", n, logs.String())
	}
	// A key Redis refused stays refused until its retry time, Redis or not:
	// a flood that made Redis slow must not lift its own limit.
	if res := l.Take(ctx, "k", rate, 1); res.Allowed || res.RetryAfter < 50*time.Minute {
		t.Fatalf("a refused key while Redis is down: %+v", res)
	}
	srv.Start()
	time.Sleep(60 * time.Millisecond)
	if !l.Take(ctx, "k2", rate, 1).Allowed || l.Take(ctx, "k2", rate, 1).Allowed {
		t.Fatal("with Redis back (emptied), 1/h must allow one and refuse the next")
	}
}

func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

// countScripts counts the script calls a client sends.
type countScripts struct{ n atomic.Int64 }

func (h *countScripts) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countScripts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (h *countScripts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// Checks made at once share script calls, and stay exact: 1,000 takes on
// 50 keys of 10 each allow exactly 10 per key.
func TestConcurrentTakesShareCallsAndStayExact(t *testing.T) {
	c := testkit.RedisClient(t, testkit.RedisURL(t, testkit.RedisDBRateLimit))
	hook := &countScripts{}
	c.AddHook(hook)
	l := ratelimit.New(ratelimit.Deps{Client: c}, ratelimit.Config{})
	rate := guidepost.Rate{Name: "combined", Count: 10, Period: time.Hour}
	prefix := fmt.Sprintf("run%d-", time.Now().UnixNano())
	var allowed [50]atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 1000 {
		wg.Go(func() {
			<-start
			if l.Take(context.Background(), prefix+strconv.Itoa(i%50), rate, 1).Allowed {
				allowed[i%50].Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	for k := range allowed {
		if n := allowed[k].Load(); n != 10 {
			t.Errorf("key %d: %d allowed, want exactly 10", k, n)
		}
	}
	if n := hook.n.Load(); n >= 500 {
		t.Errorf("%d script calls for 1,000 takes at once: want them combined", n)
	} else {
		t.Logf("%d script calls for 1,000 takes", n)
	}
}
