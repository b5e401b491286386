// Package readmarks keeps each signed-in client's read mark (see
// guidepost.WithReadMark) in Redis, so that whichever API process serves
// the client's next request reads at least as far as its last write, on a
// replica that has replayed it or on the primary.
//
// Redis rather than a header or cookie the client sends back: every
// client (an app, curl, a browser) gets its own writes without doing
// anything, and a second device of the same account too. It costs one GET
// per signed-in request, and only when replicas are configured.
package readmarks

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
)

// Deps are what the marks use.
type Deps struct {
	Client     redis.UniversalClient
	Registerer prometheus.Registerer
	Log        *slog.Logger
}

// Config tunes the marks; DefaultConfig has every default, and New fills
// a zero field from it.
type Config struct {
	// TTL is how long a mark is kept after the write that set it (11 s,
	// twice the replicas' default max lag and a second): past it, every
	// replica still in rotation has replayed the write.
	TTL time.Duration
	// Timeout bounds each Redis call (200 ms).
	Timeout time.Duration
}

// DefaultConfig is the marks' configuration with every default.
func DefaultConfig() Config { return Config{TTL: 11 * time.Second, Timeout: 200 * time.Millisecond} }

// Redis stores marks under guidepost:readmark:<user>.
type Redis struct {
	rdb   redis.UniversalClient
	opt   Config
	log   *slog.Logger
	calls *prometheus.CounterVec // op, outcome
}

// New keeps marks in deps.Client.
func New(deps Deps, cfg Config) *Redis {
	def := DefaultConfig()
	guidepost.Default(&cfg.TTL, def.TTL)
	guidepost.Default(&cfg.Timeout, def.Timeout)
	r := &Redis{rdb: deps.Client, opt: cfg, log: guidepost.Logger(deps.Log), calls: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "guidepost_read_marks_total",
		Help: "Read marks read (op=get) and raised (op=raise) in Redis, by outcome: ok, none, error (a get that fails sends the client's reads to the primary).",
	}, []string{"op", "outcome"})}
	if deps.Registerer != nil {
		deps.Registerer.MustRegister(r.calls)
	}
	return r
}

// Follow returns ctx carrying userID's mark; the request's writes raise
// it, in Redis, before their answer is sent. A mark that cannot be read
// sends the request's reads to the primary: its writes cannot be missed.
func (r *Redis) Follow(ctx context.Context, userID string) context.Context {
	key := "guidepost:readmark:" + userID
	gctx, cancel := context.WithTimeout(ctx, r.opt.Timeout)
	v, err := r.rdb.Get(gctx, key).Uint64()
	cancel()
	switch {
	case err == redis.Nil:
		v = 0
		r.calls.WithLabelValues("get", "none").Inc()
	case err != nil:
		v = math.MaxInt64
		r.calls.WithLabelValues("get", "error").Inc()
	default:
		r.calls.WithLabelValues("get", "ok").Inc()
	}
	return guidepost.WithReadMark(ctx, v, func(at uint64) { r.raise(ctx, key, at) })
}

// raiseScript sets the mark unless a later one is there; either way the
// mark lives TTL from now.
var raiseScript = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then
	return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`)

func (r *Redis) raise(ctx context.Context, key string, at uint64) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opt.Timeout)
	defer cancel()
	err := raiseScript.Run(rctx, r.rdb, []string{key}, strconv.FormatUint(at, 10), r.opt.TTL.Milliseconds()).Err()
	if err != nil && err != redis.Nil {
		r.calls.WithLabelValues("raise", "error").Inc()
		r.log.WarnContext(ctx, "read mark not saved: this client's next request may read a replica behind its write", "err", err)
		return
	}
	r.calls.WithLabelValues("raise", "ok").Inc()
}
