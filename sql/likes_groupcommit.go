package sql

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/batchqueue"
)

// Group commit of likes: Like and Unlike (likes.go) batched into one
// statement and one commit. Why: a like is tiny; what it costs is its own
// transaction and WAL flush, so a storm of likes waits on commits, not on
// work. It lives beside likes.go because a batch is written with the
// store's own statements (writeLikes, likeOne); the queue that carries
// requests to the committers is internal/batchqueue. While the store is started, Like and Unlike hand their request to
// a few committers; each takes what is queued (waiting up to Window for
// more), writes the whole batch in one statement and one commit, and only
// then answers every request in it. An answer always follows its commit,
// so an acknowledged like survives a crash of this process; a request
// whose caller gives up meanwhile may still be written, as a single
// statement cancelled in flight may.

// LikeBatchOptions tune the committers; zero values take the defaults.
type LikeBatchOptions struct {
	Committers int           // 4: batches written at once
	Window     time.Duration // 2 ms: how long a batch waits to fill after its first request
	MaxBatch   int           // 512 requests
	Timeout    time.Duration // 10 s: a batch's statement gives up after this
	Registerer prometheus.Registerer
}

func (o LikeBatchOptions) withDefaults() LikeBatchOptions {
	if o.Committers <= 0 {
		o.Committers = 4
	}
	if o.Window <= 0 {
		o.Window = 2 * time.Millisecond
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 512
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return o
}

type likeOp struct {
	like        bool
	guide, user string
	session     string // checked live by the statement (guides.Liker); "" for none
	at          time.Time
	queued      time.Time
	follows     bool            // its request follows its writes (guidepost.FollowsWrites)
	done        chan likeResult // buffered: a committer never waits on a caller
}

// likeResult is a request's answer and, when its request follows its
// writes to replicas, the primary's position after its round committed.
type likeResult struct {
	st  guides.LikeState
	err error
	lsn uint64
}

// likeBatcher owns the committers, in the shape of river's startstop: the
// queues are closed on Stop and the committers drain them before they
// return, so every accepted request is answered.
//
// Each committer has a queue of its own, and a user's requests all go to
// one (byUser): a double tap's two taps, or a like and its unlike, are
// then in one batch or in two batches of the same committer, one after
// the other. With one shared queue they were often in two batches written
// at once, and the later one's insert waited on the unique index for the
// other transaction's commit (and FOR SHARE of the user made a multixact):
// in a storm of 1,000 users double-tapping, a quarter of the committers'
// time was such waits (pg_stat_activity, Lock:transactionid), and a like
// could overtake its user's earlier unlike. Each committer also bumps
// a counter shard of its own (shardOf), so two batches never wait on
// each other's shard row either.
type likeBatcher struct {
	s   *Guides
	opt LikeBatchOptions
	m   likeBatchMetrics
	qs  []batchqueue.Queue[*likeOp] // one per committer
}

type likeBatchMetrics struct {
	size, wait prometheus.Histogram
	fallbacks  prometheus.Counter
}

func newLikeBatchMetrics(reg prometheus.Registerer) likeBatchMetrics {
	m := likeBatchMetrics{
		size: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "guidepost_likes_batch_size", Help: "Likes and unlikes written by one statement and one commit.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 10),
		}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "guidepost_likes_batch_wait_seconds", Help: "From a like's arrival to its batch's commit.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_likes_batch_fallbacks_total", Help: "Batches that failed and were written one request at a time.",
		}),
	}
	if reg != nil {
		m.size = register(reg, m.size)
		m.wait = register(reg, m.wait)
		m.fallbacks = register(reg, m.fallbacks)
	}
	return m
}

// register registers c, or returns the one already registered (batching
// restarted on the same registry).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(c); errors.As(err, &are) {
		if old, ok := are.ExistingCollector.(C); ok {
			return old
		}
	} else if err != nil {
		panic(err)
	}
	return c
}

var errLikesStarted = errors.New("sql: like batching already started")

// StartLikeBatching makes Like and Unlike group-commit until
// StopLikeBatching. Without it each like is its own statement.
func (s *Guides) StartLikeBatching(opt LikeBatchOptions) error {
	opt = opt.withDefaults()
	b := &likeBatcher{s: s, opt: opt}
	if !s.batcher.CompareAndSwap(nil, b) {
		return errLikesStarted
	}
	b.m = newLikeBatchMetrics(opt.Registerer)
	b.qs = make([]batchqueue.Queue[*likeOp], opt.Committers)
	for i := range b.qs {
		// Committer i: a batch at a time, each waiting up to Window to
		// fill, written with a counter shard of its own.
		b.qs[i].Start(max(opt.MaxBatch, 4*opt.MaxBatch/opt.Committers), 1,
			b.qs[i].Worker(opt.MaxBatch, opt.Window, func(batch []*likeOp) { b.write(batch, shardOf(i)) }))
	}
	return nil
}

// StopLikeBatching answers every request already accepted, then returns
// once the committers have; later likes are written one at a time.
// Stopping twice, or never started, is fine.
func (s *Guides) StopLikeBatching() {
	b := s.batcher.Swap(nil)
	if b == nil {
		return
	}
	for i := range b.qs {
		b.qs[i].Close()
	}
}

var errLikesStopping = guidepost.Errorf(guidepost.EUNAVAILABLE, "the server is stopping; try again shortly")

// submit queues op and waits for its batch to commit, or for ctx.
func (b *likeBatcher) submit(ctx context.Context, op *likeOp) (guides.LikeState, error) {
	op.queued, op.done = time.Now(), make(chan likeResult, 1)
	op.follows = b.s.db.reads != nil && guidepost.FollowsWrites(ctx)
	switch r, sent, err := batchqueue.Await(ctx, &b.qs[b.byUser(op.user)], op, op.done); {
	case !sent:
		return guides.LikeState{}, errLikesStopping
	case err != nil:
		return guides.LikeState{}, err
	default:
		if r.err == nil && op.follows {
			guidepost.Wrote(ctx, r.lsn)
		}
		return r.st, r.err
	}
}

// byUser is the committer a user's requests go to (see likeBatcher).
func (b *likeBatcher) byUser(user string) int {
	h := fnv.New32a()
	h.Write([]byte(user))
	return int(h.Sum32() % uint32(len(b.qs)))
}

// shardOf is the counter shard committer i bumps: its own while there
// are no more committers than shards.
func shardOf(i int) int { return i % LikeShards }

// write commits batch in rounds (see rounds), bumping shard, and answers
// each request.
func (b *likeBatcher) write(batch []*likeOp, shard int) {
	ctx, cancel := context.WithTimeout(context.Background(), b.opt.Timeout)
	defer cancel()
	b.m.size.Observe(float64(len(batch)))
	for _, round := range rounds(batch) {
		res := b.writeRound(ctx, round, shard)
		lsn := b.positionFor(ctx, round)
		for i, op := range round {
			res[i].lsn = lsn
			b.m.wait.Observe(time.Since(op.queued).Seconds())
			op.done <- res[i]
		}
	}
}

// writeRound writes a round in one statement and gives each request its
// answer, in round order.
func (b *likeBatcher) writeRound(ctx context.Context, round []*likeOp, shard int) []likeResult {
	res := make([]likeResult, len(round))
	w, err := b.s.writeLikes(ctx, round, shard)
	if err != nil && !isConnError(err) && ctx.Err() == nil {
		// One bad request (a guide or user deleted meanwhile) or a
		// deadlock fails the statement for all: write them one by one,
		// so each gets its own answer.
		b.m.fallbacks.Inc()
		for i, op := range round {
			res[i].st, res[i].err = b.s.likeOne(ctx, op)
		}
		return res
	}
	for i, op := range round {
		if err != nil {
			res[i].err = writeError(err)
			continue
		}
		c, ok := w.counts[op.guide]
		n, ok := c.likedBy(op.user, ok)
		switch {
		case op.session != "" && w.ended[sessionOf(op)]:
			res[i].err = auth.ErrSessionEnded
		case !ok:
			res[i].err = translate(pgx.ErrNoRows, "guide")
		case op.like && c.refuses(op.user):
			res[i].err = guides.ErrBlockedLike
		default:
			res[i].st = guides.LikeState{Liked: op.like, LikeCount: n}
		}
	}
	return res
}

// positionFor reads the primary's position once for a round just
// committed, when a request in it follows its writes to replicas: one
// read per round, not one per like (0: none follows). Unknown, it is a
// position no replica has, as noteWrite's is.
func (b *likeBatcher) positionFor(ctx context.Context, round []*likeOp) uint64 {
	if !slices.ContainsFunc(round, func(op *likeOp) bool { return op.follows }) {
		return 0
	}
	lsn, err := currentLSN(ctx, b.s.db.Pool)
	if err != nil {
		return math.MaxInt64
	}
	return lsn
}

// rounds splits a batch so that no round holds both a like and an unlike
// of the same pair: a pair's requests keep their order across rounds, and
// repeats of the same request share a round (a double tap is written
// once and both taps get its answer).
func rounds(batch []*likeOp) [][]*likeOp {
	type pair struct{ guide, user string }
	type last struct {
		like  bool
		round int
	}
	seen := make(map[pair]last, len(batch))
	var out [][]*likeOp
	for _, op := range batch {
		p := pair{op.guide, op.user}
		r := 0
		if l, ok := seen[p]; ok {
			r = l.round
			if l.like != op.like {
				r++
			}
		}
		seen[p] = last{op.like, r}
		if r == len(out) {
			out = append(out, nil)
		}
		out[r] = append(out[r], op)
	}
	return out
}
