package sql

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// ReplicaConfig configures reads on streaming replicas
// (DATABASE_REPLICA_*), and where they report; a zero duration takes
// DefaultConfig's.
type ReplicaConfig struct {
	URLs []string // none: every read on the primary
	// MaxLag takes a replica out of rotation once it is this far behind
	// the primary (5 s).
	MaxLag time.Duration
	// Wait is how long a read that must see a recent write waits for a
	// replica to replay it before it goes to the primary (50 ms).
	Wait time.Duration
	// Every is how often each replica's health and position are read
	// (200 ms): a replica that stops or falls behind leaves within it.
	Every      time.Duration
	Registerer prometheus.Registerer
	Log        *slog.Logger
}

func (o ReplicaConfig) withDefaults() ReplicaConfig {
	def := DefaultConfig().Replicas
	guidepost.Default(&o.MaxLag, def.MaxLag)
	guidepost.Default(&o.Wait, def.Wait)
	guidepost.Default(&o.Every, def.Every)
	o.Log = guidepost.Logger(o.Log)
	return o
}

// replicas owns the replica pools, their health loop and the positions
// reads must reach. A read needs a position (an LSN, as bytes from 0/0):
// a replica serves it only once pg_last_wal_replay_lsn() is at or past it.
// PostgreSQL makes a replayed commit visible to every later snapshot, so
// a statement started after that check sees the write.
type replicas struct {
	primary *pgxpool.Pool
	list    []*replica
	next    atomic.Uint64
	opt     ReplicaConfig
	m       *replicaMetrics
	tiles   tileMarks

	samples []lsnSample // the primary's position over the last 2×MaxLag; the loop's alone

	cancel  context.CancelFunc
	stopped chan struct{}
}

// replica is one pool and what the health loop last saw of it.
type replica struct {
	name     string // host:port, the metrics' pool label
	pool     *pgxpool.Pool
	healthy  atomic.Bool
	replayed atomic.Uint64 // a lower bound of its replay position
	lag      atomic.Int64  // nanoseconds
}

type lsnSample struct {
	at  time.Time
	lsn uint64
}

// openReplicas connects (lazily: a replica down at start joins when it
// comes up) and starts the health loop, which Close joins.
func openReplicas(ctx context.Context, primary *pgxpool.Pool, opt ReplicaConfig, configure func(*pgxpool.Config)) (*replicas, error) {
	opt = opt.withDefaults()
	r := &replicas{primary: primary, opt: opt}
	for _, url := range opt.URLs {
		cfg, err := pgxpool.ParseConfig(url)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("postgres: bad DATABASE_REPLICA_URLS: %w", err)
		}
		configure(cfg)
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("postgres: replica: %w", err)
		}
		r.list = append(r.list, &replica{name: fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port), pool: pool})
	}
	r.m = newReplicaMetrics(opt.Registerer, r)
	r.check(ctx) // a first look, so that reads use healthy replicas at once
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel, r.stopped = cancel, make(chan struct{})
	go func() {
		defer close(r.stopped)
		r.loop(lctx)
	}()
	return r, nil
}

// close stops the health loop, waits for it, then closes the pools.
func (r *replicas) close() {
	if r.cancel != nil {
		r.cancel()
		<-r.stopped
		r.cancel = nil
	}
	for _, rep := range r.list {
		rep.pool.Close()
	}
}

func (r *replicas) loop(ctx context.Context) {
	t := time.NewTicker(r.opt.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.check(ctx)
		}
	}
}

// check samples the primary's position, then reads every replica's; a
// replica is healthy when it answers, is still in recovery (not promoted)
// and lags at most MaxLag.
func (r *replicas) check(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, min(time.Second, 4*r.opt.Every))
	defer cancel()
	if lsn, err := currentLSN(cctx, r.primary); err == nil {
		r.sample(time.Now(), lsn)
	}
	var wg sync.WaitGroup
	for _, rep := range r.list {
		wg.Go(func() { r.checkOne(cctx, rep) })
	}
	wg.Wait()
	r.tiles.forget(r.minReplayed())
}

func (r *replicas) checkOne(ctx context.Context, rep *replica) {
	var standby bool
	var lsn int64
	err := rep.pool.QueryRow(ctx, `SELECT pg_is_in_recovery(), coalesce(pg_last_wal_replay_lsn() - '0/0'::pg_lsn, 0)::bigint`).Scan(&standby, &lsn)
	if err != nil || !standby {
		if rep.healthy.Swap(false) && ctx.Err() == nil {
			r.opt.Log.Warn("postgres replica out of rotation", "replica", rep.name, "err", err, "promoted", err == nil)
		}
		return
	}
	rep.raise(uint64(lsn))
	lag := r.lagOf(uint64(lsn), time.Now())
	rep.lag.Store(int64(lag))
	ok := lag <= r.opt.MaxLag
	if was := rep.healthy.Swap(ok); was != ok {
		r.opt.Log.Info("postgres replica rotation", "replica", rep.name, "in", ok, "lag", lag.Round(time.Millisecond))
	}
}

// sample records the primary's position at t and drops what is older
// than twice MaxLag (keeping the newest of those: lag is measured from it).
func (r *replicas) sample(t time.Time, lsn uint64) {
	r.samples = append(r.samples, lsnSample{t, lsn})
	drop := 0
	for drop < len(r.samples)-1 && t.Sub(r.samples[drop+1].at) > 2*r.opt.MaxLag {
		drop++
	}
	r.samples = r.samples[drop:]
}

// lagOf is how long ago the primary first stood past lsn: zero when the
// replica has what the primary had at the last sample. It goes by WAL
// positions, not clocks, so an idle primary shows no lag and a replica
// whose stream stopped shows its lag growing.
func (r *replicas) lagOf(lsn uint64, now time.Time) time.Duration {
	for _, s := range r.samples {
		if s.lsn > lsn {
			return now.Sub(s.at)
		}
	}
	return 0
}

func (rep *replica) raise(lsn uint64) {
	for {
		old := rep.replayed.Load()
		if lsn <= old || rep.replayed.CompareAndSwap(old, lsn) {
			return
		}
	}
}

// inRotation counts the healthy replicas.
func (r *replicas) inRotation() int {
	n := 0
	for _, rep := range r.list {
		if rep.healthy.Load() {
			n++
		}
	}
	return n
}

// minReplayed is the position every healthy replica has replayed (0 with
// none healthy).
func (r *replicas) minReplayed() uint64 {
	var low uint64
	for _, rep := range r.list {
		if rep.healthy.Load() {
			if l := rep.replayed.Load(); low == 0 || l < low {
				low = l
			}
		}
	}
	return low
}

// pick is the pool a read needing position need goes to: a healthy
// replica that has replayed it (round robin), else one that replays it
// within Wait, else the primary. The replica is nil for the primary.
func (r *replicas) pick(ctx context.Context, need uint64) (*pgxpool.Pool, *replica) {
	if need >= math.MaxInt64 { // the client's last write is not known
		return r.toPrimary("mark_unknown")
	}
	n := len(r.list)
	start := int(r.next.Add(1))
	var behind *replica
	for i := range n {
		rep := r.list[(start+i)%n]
		if !rep.healthy.Load() {
			continue
		}
		if rep.replayed.Load() >= need {
			r.m.reads.WithLabelValues(rep.name).Inc()
			return rep.pool, rep
		}
		if behind == nil || rep.replayed.Load() > behind.replayed.Load() {
			behind = rep
		}
	}
	if behind == nil {
		return r.toPrimary("no_replica")
	}
	if r.wait(ctx, behind, need) {
		r.m.waits.WithLabelValues(behind.name, "caught_up").Inc()
		r.m.reads.WithLabelValues(behind.name).Inc()
		return behind.pool, behind
	}
	r.m.waits.WithLabelValues(behind.name, "timeout").Inc()
	return r.toPrimary("behind")
}

func (r *replicas) toPrimary(reason string) (*pgxpool.Pool, *replica) {
	r.m.moved.WithLabelValues(reason).Inc()
	r.m.reads.WithLabelValues("primary").Inc()
	return r.primary, nil
}

// wait polls rep's replay position until it reaches need, up to Wait.
func (r *replicas) wait(ctx context.Context, rep *replica, need uint64) bool {
	wctx, cancel := context.WithTimeout(ctx, r.opt.Wait)
	defer cancel()
	for pause := time.Millisecond; ; pause = min(2*pause, 10*time.Millisecond) {
		var lsn int64
		err := rep.pool.QueryRow(wctx, `SELECT coalesce(pg_last_wal_replay_lsn() - '0/0'::pg_lsn, 0)::bigint`).Scan(&lsn)
		if err != nil {
			return false
		}
		rep.raise(uint64(lsn))
		if uint64(lsn) >= need {
			return true
		}
		if !guidepost.Sleep(wctx, pause) {
			return false
		}
	}
}

// replicaFailed reports an error after which a read is tried again on the
// primary: the replica went away, or cancelled the query because replay
// needed the rows it read (max_standby_streaming_delay).
func replicaFailed(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "57P04") {
		return true
	}
	return isConnError(err) && !errors.Is(err, context.Canceled)
}

// currentLSN is the primary's write position now, past every commit
// acknowledged so far (insert, not flush: with synchronous_commit off a
// commit is acknowledged before its WAL is flushed).
func currentLSN(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (uint64, error) {
	var lsn int64
	err := q.QueryRow(ctx, `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&lsn)
	return uint64(lsn), err
}
