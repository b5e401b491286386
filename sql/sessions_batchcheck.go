package sql

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/batchqueue"
)

// Batched session check: SessionLive (sessions.go) answering many
// requests with one query. Why: every authenticated request asks whether
// its session is live; a storm of requests (1,000 users double-tapping
// like) is thousands of one-row queries at once, each a round trip, a pool
// connection and a slice of PostgreSQL's CPU. While checking is started,
// checks queue to a few readers; a reader takes every check waiting, up to
// MaxBatch, and answers them all with one query. It never waits for more:
// a lone check is one query at once, as without batching. Each check is
// answered by a query that began after the check was queued, so a session
// revoked before the request came is seen revoked, exactly as with a
// query of its own. It lives beside sessions.go because the batch is
// answered by the store's own query (liveSessions); the queue that carries
// checks to the readers is internal/batchqueue.

// SessionCheckOptions tune the readers; zero values take the defaults.
type SessionCheckOptions struct {
	Readers    int           // 4: queries at once
	MaxBatch   int           // 512 checks per query
	Timeout    time.Duration // 5 s: a query gives up after this
	Registerer prometheus.Registerer
}

func (o SessionCheckOptions) withDefaults() SessionCheckOptions {
	guidepost.Default(&o.Readers, 4)
	guidepost.Default(&o.MaxBatch, 512)
	guidepost.Default(&o.Timeout, 5*time.Second)
	return o
}

type sessionCheck struct {
	c    auth.Caller
	now  time.Time
	done chan sessionAnswer // buffered: a reader never waits on a caller
}

type sessionAnswer struct {
	live bool
	err  error
}

// sessionChecker owns the readers.
type sessionChecker struct {
	u    *Users
	opt  SessionCheckOptions
	size prometheus.Histogram
	q    batchqueue.Queue[*sessionCheck]
}

// StartSessionChecks makes SessionLive batch concurrent checks until
// StopSessionChecks. Without it each check is its own query.
func (s *Users) StartSessionChecks(opt SessionCheckOptions) error {
	opt = opt.withDefaults()
	k := &sessionChecker{u: s, opt: opt}
	if !s.checker.CompareAndSwap(nil, k) {
		return errChecksStarted
	}
	k.size = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "guidepost_session_checks_batch_size", Help: "Session checks answered by one query.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 10),
	})
	if opt.Registerer != nil {
		k.size = register(opt.Registerer, k.size)
	}
	// A reader takes what is waiting; it never waits for more.
	k.q.Start(4*opt.MaxBatch, opt.Readers, k.q.Worker(opt.MaxBatch, 0, k.answer))
	return nil
}

var errChecksStarted = errors.New("sql: session checks already started")

// StopSessionChecks answers every check already queued, then returns once
// the readers have; later checks are one query each. Stopping twice, or
// never started, is fine.
func (s *Users) StopSessionChecks() {
	k := s.checker.Swap(nil)
	if k == nil {
		return
	}
	k.q.Close()
}

// submit queues a check and waits for its answer, or for ctx. ok is false
// when the checker is stopping: the caller checks by itself.
func (k *sessionChecker) submit(ctx context.Context, c auth.Caller, now time.Time) (live, ok bool, err error) {
	chk := &sessionCheck{c: c, now: now, done: make(chan sessionAnswer, 1)}
	a, sent, err := batchqueue.Await(ctx, &k.q, chk, chk.done)
	if err == nil {
		err = a.err
	}
	return a.live, sent, err
}

// answer checks a batch with one query and answers each check.
func (k *sessionChecker) answer(batch []*sessionCheck) {
	k.size.Observe(float64(len(batch)))
	ctx, cancel := context.WithTimeout(context.Background(), k.opt.Timeout)
	defer cancel()
	live, err := k.u.liveSessions(ctx, batch)
	for i, chk := range batch {
		chk.done <- sessionAnswer{live: err == nil && live[i], err: err}
	}
}

// liveSessions tells, for each check of a batch (all with a session id),
// whether its session is live.
func (s *Users) liveSessions(ctx context.Context, batch []*sessionCheck) ([]bool, error) {
	sids, uids, nows := make([]string, len(batch)), make([]string, len(batch)), make([]time.Time, len(batch))
	for i, chk := range batch {
		sids[i], uids[i], nows[i] = chk.c.SessionID, chk.c.UserID, chk.now
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT r.i - 1 FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) WITH ORDINALITY AS r(sid, uid, at, i)
		WHERE `+sessionIsLive("r.sid", "r.uid", "r.at"),
		sids, uids, nows)
	if err != nil {
		return nil, err
	}
	live := make([]bool, len(batch))
	var i int64
	_, err = pgx.ForEachRow(rows, []any{&i}, func() error {
		live[i] = true
		return nil
	})
	return live, err
}
