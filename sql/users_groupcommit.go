package sql

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/batchqueue"
)

// Group commit of new accounts: CreateAccount (users.go) batched into one
// statement and one commit, as likes are (likes_groupcommit.go). Why: a
// guest costs almost nothing but its commit, so a storm of sign-ups (an
// app launch, a crowd arriving at one place) waits on WAL flushes, one
// per account. While batching is started, CreateAccount hands its account
// to a few committers; each takes every account waiting (it never waits
// for more: a lone sign-up is written at once, as without batching),
// writes them with the one statement a single account uses, and only then
// answers each. An answer follows its commit, so a 201 means the account
// is durable. A batch that fails (a taken email fails the statement for
// all) is written again account by account, so each caller gets its own
// answer and one taken email fails no one else.

// AccountBatchOptions tune the committers; zero values take the defaults.
type AccountBatchOptions struct {
	Committers int           // 2: batches written at once
	MaxBatch   int           // 256 accounts
	Timeout    time.Duration // 10 s: a batch's statement gives up after this
	Registerer prometheus.Registerer
}

func (o AccountBatchOptions) withDefaults() AccountBatchOptions {
	guidepost.Default(&o.Committers, 2)
	guidepost.Default(&o.MaxBatch, 256)
	guidepost.Default(&o.Timeout, 10*time.Second)
	return o
}

// newAccount is one CreateAccount waiting for its batch.
type newAccount struct {
	u    auth.User
	s    auth.SessionRow
	hash []byte
	done chan error // buffered: a committer never waits on a caller
}

type accountBatcher struct {
	u         *Users
	opt       AccountBatchOptions
	size      prometheus.Histogram
	fallbacks prometheus.Counter
	q         batchqueue.Queue[*newAccount]
}

var errAccountsStarted = errors.New("sql: account batching already started")

// StartAccountBatching makes CreateAccount group-commit until
// StopAccountBatching. Without it each account is its own statement.
func (s *Users) StartAccountBatching(opt AccountBatchOptions) error {
	opt = opt.withDefaults()
	b := &accountBatcher{u: s, opt: opt}
	if !s.accounts.CompareAndSwap(nil, b) {
		return errAccountsStarted
	}
	b.size = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "guidepost_accounts_batch_size", Help: "New accounts written by one statement and one commit.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 9),
	})
	b.fallbacks = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_accounts_batch_fallbacks_total", Help: "Account batches that failed and were written one account at a time.",
	})
	if opt.Registerer != nil {
		b.size, b.fallbacks = register(opt.Registerer, b.size), register(opt.Registerer, b.fallbacks)
	}
	// A committer takes every account waiting; it never waits for more.
	b.q.Start(4*opt.MaxBatch, opt.Committers, b.q.Worker(opt.MaxBatch, 0, b.write))
	return nil
}

// StopAccountBatching answers every account already queued, then returns
// once the committers have; later accounts are one statement each.
// Stopping twice, or never started, is fine.
func (s *Users) StopAccountBatching() {
	if b := s.accounts.Swap(nil); b != nil {
		b.q.Close()
	}
}

// submit queues a and waits for its batch to commit, or for ctx (the
// account may then be written all the same, as a statement cancelled in
// flight may). ok is false when batching is stopping: the caller writes
// the account by itself.
func (b *accountBatcher) submit(ctx context.Context, a *newAccount) (ok bool, err error) {
	a.done = make(chan error, 1)
	werr, sent, err := batchqueue.Await(ctx, &b.q, a, a.done)
	if err == nil {
		err = werr
	}
	return sent, err
}

// write commits a batch and answers each account.
func (b *accountBatcher) write(batch []*newAccount) {
	ctx, cancel := context.WithTimeout(context.Background(), b.opt.Timeout)
	defer cancel()
	b.size.Observe(float64(len(batch)))
	err := b.u.createAccounts(ctx, batch)
	if err != nil && len(batch) > 1 && !isConnError(err) && ctx.Err() == nil {
		b.fallbacks.Inc()
		for _, a := range batch {
			a.done <- b.u.createAccounts(ctx, []*newAccount{a})
		}
		return
	}
	for _, a := range batch {
		a.done <- err
	}
}
