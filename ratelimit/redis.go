// Package ratelimit counts requests against guidepost.Rate allowances in
// Redis, so every API process shares one count per key. It uses GCRA
// (go-redis/redis_rate's script, see gcra.go): one key per (limit, caller)
// holding a single timestamp, updated by one Lua script, so a burst never
// overshoots; checks made at once share one round trip (combine.go).
package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// Deps are what the limiter uses.
type Deps struct {
	Client     redis.UniversalClient
	Registerer prometheus.Registerer // nil: metrics are not exported
	Log        *slog.Logger          // nil discards
}

// Config tunes the limiter; DefaultConfig has every default, and New fills
// a zero field from it.
type Config struct {
	// Timeout bounds one Redis call (500 ms): past it the request is let
	// through rather than made to wait on a sick Redis. Not much shorter:
	// a server under attack is busy, and a limiter that gives up on a
	// merely slow Redis lifts its limits exactly when they matter.
	Timeout time.Duration
	// Backoff is how long Redis is skipped after a failure (1 s), so an
	// outage costs each request nothing instead of a timeout.
	Backoff time.Duration
	// LogEvery spaces the "failing open" log lines (1 min): an outage is
	// one line per interval, not one per request.
	LogEvery time.Duration
	// Prefix is put before every key ("ratelimit:"), inside redis_rate's own.
	Prefix string
}

// Redis is the shared limiter.
type Redis struct {
	rdb      redis.UniversalClient
	batches  *combiner
	opt      Config
	log      *slog.Logger
	down     atomic.Int64 // unix ns until which Redis is skipped
	lastLog  atomic.Int64 // unix ns of the last fail-open line
	refused  refusals
	failOpen prometheus.Counter
	limited  *prometheus.CounterVec
}

var _ auth.Limiter = (*Redis)(nil)

// DefaultConfig is the limiter's configuration with every default.
func DefaultConfig() Config {
	return Config{Timeout: 500 * time.Millisecond, Backoff: time.Second, LogEvery: time.Minute, Prefix: "ratelimit:"}
}

// New builds a limiter on deps.Client.
func New(deps Deps, cfg Config) *Redis {
	def := DefaultConfig()
	guidepost.Default(&cfg.Timeout, def.Timeout)
	guidepost.Default(&cfg.Backoff, def.Backoff)
	guidepost.Default(&cfg.LogEvery, def.LogEvery)
	if cfg.Prefix == "" {
		cfg.Prefix = def.Prefix
	}
	r := &Redis{rdb: deps.Client, opt: cfg, log: guidepost.Logger(deps.Log), refused: refusals{until: map[string]int64{}}}
	r.batches = newCombiner(r.runBatch)
	r.failOpen = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_ratelimit_fail_open_total",
		Help: "Requests let through unchecked because Redis could not be asked.",
	})
	r.limited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "guidepost_ratelimit_limited_total",
		Help: "Requests refused by a rate limit, by limit.",
	}, []string{"limit"})
	if deps.Registerer != nil {
		deps.Registerer.MustRegister(r.failOpen, r.limited)
	}
	return r
}

// Take spends n events of rate for key (a negative n gives them back) and
// refuses, spending nothing, when they do not fit. It never fails: when
// Redis cannot answer within Timeout it allows, and says so in a metric
// and a log line, because refusing every request would turn a Redis blip
// into an outage.
func (r *Redis) Take(ctx context.Context, key string, rate guidepost.Rate, n int) guidepost.RateResult {
	open := guidepost.RateResult{Allowed: true, Remaining: rate.Count}
	if rate.Off() {
		return open
	}
	key = r.opt.Prefix + rate.Name + ":" + key
	now := time.Now()
	if n <= 0 {
		r.refused.forget(key)
	} else {
		if wait := r.refused.wait(key, now); wait > 0 {
			r.limited.WithLabelValues(rate.Name).Inc()
			return guidepost.RateResult{RetryAfter: wait, ResetAfter: max(wait, rate.Period)}
		}
	}
	if now.UnixNano() < r.down.Load() {
		r.failOpen.Inc()
		return open
	}
	t := &take{key: key, count: rate.Count, period: rate.Period, n: n}
	wait, cancel := context.WithTimeout(ctx, r.opt.Timeout)
	err := r.batches.do(wait, t)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = errTimeout
	}
	if err != nil {
		if ctx.Err() == nil {
			r.failed(ctx, err)
		}
		return open
	}
	res := t.res
	out := guidepost.RateResult{Allowed: res.allowed > 0 || n <= 0, Remaining: res.remaining,
		RetryAfter: max(0, res.retryAfter), ResetAfter: max(0, res.resetAfter)}
	if !out.Allowed {
		r.limited.WithLabelValues(rate.Name).Inc()
		r.refused.note(key, now.Add(out.RetryAfter))
	}
	return out
}

// refusals remembers, in this process, keys Redis refused and until when:
// GCRA allows nothing before RetryAfter, so until then a key is refused
// without asking Redis. A flood from one address then costs one Redis call
// per RetryAfter instead of one per request, and a Redis made slow by the
// flood cannot lift the limit the flood ran into. (Another process giving
// events back could shorten the wait; being refused a little long is the
// safe side.)
type refusals struct {
	mu    sync.Mutex
	until map[string]int64 // unix ns
}

// maxRefusals bounds the memory an attacker walking keys can make it use;
// past it expired entries are dropped, and if none has, nothing new is kept.
const maxRefusals = 100_000

func (f *refusals) wait(key string, now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.until[key]
	if !ok {
		return 0
	}
	if d := time.Duration(t - now.UnixNano()); d > 0 {
		return d
	}
	delete(f.until, key)
	return 0
}

func (f *refusals) forget(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.until, key)
}

func (f *refusals) note(key string, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.until) >= maxRefusals {
		now := time.Now().UnixNano()
		for k, t := range f.until {
			if t <= now {
				delete(f.until, k)
			}
		}
		if len(f.until) >= maxRefusals {
			return
		}
	}
	f.until[key] = until.UnixNano()
}

// failed counts a fail-open, skips Redis for Backoff, and logs at most once
// per LogEvery.
func (r *Redis) failed(ctx context.Context, err error) {
	r.failOpen.Inc()
	now := time.Now()
	r.down.Store(now.Add(r.opt.Backoff).UnixNano())
	last := r.lastLog.Load()
	if now.UnixNano()-last < int64(r.opt.LogEvery) || !r.lastLog.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	r.log.WarnContext(ctx, "rate limits: redis failed; letting requests through unchecked",
		"err", err, "next_log_within", r.opt.LogEvery)
}

var errTimeout = errors.New("redis did not answer in time")

// runBatch spends a batch of takes in one call. The batch is others' too,
// so the caller running it going away does not cancel it; but it ends by
// the caller's deadline (its Timeout from when it asked), so no caller
// waits on Redis much past its own Timeout, and takes of others it could
// not spend by then fail open as theirs would.
func (r *Redis) runBatch(ctx context.Context, batch []*take) {
	bctx := context.WithoutCancel(ctx)
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		bctx, cancel = context.WithDeadline(bctx, d)
		defer cancel()
	}
	var res []gcraResult
	err := r.call(bctx, func(ctx context.Context) (err error) {
		res, err = runGCRA(ctx, r.rdb, batch)
		return err
	})
	for i, t := range batch {
		if err != nil {
			t.err = err
		} else {
			t.res = res[i]
		}
	}
}

// call runs fn with the timeout and returns when the timeout does, whether
// or not fn has: go-redis does not always honour a context deadline (a
// connection's handshake waits for its own dial timeout), and a request
// must never wait on a sick Redis longer than Timeout. fn's goroutine ends
// once its context is canceled or within the client's own timeouts; its
// result is read only through done.
func (r *Redis) call(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, r.opt.Timeout)
	// Canceled on return, not when fn ends: both channels would then be
	// ready at once, and select could report a success as canceled.
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errTimeout
		}
		return ctx.Err()
	}
}
