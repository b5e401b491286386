package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guidepost/guidepost"
)

// loadBudget bounds the time background loads take to the time the
// cache's answers saved the database, plus an allowance. Loads are an
// investment: after a restart, at 200 req/s of random map reads over 1 M
// guides, loads at FillDuty bought 295 nearby answers in 20 s and cost the
// database more than those answers saved (p95 1.02 of the cache-off run at
// the median; with loads all but off, 0.93–0.96: BENCHMARKS.md, seventh
// stop). A hit saves what a cold miss of its kind costs (the store's time,
// averaged); a load spends its own time. The allowance, FillAllowance of
// the time that passes, lets an empty cache start earning; once answers
// come from memory they save far more than loads spend, and FillDuty alone
// paces the loaders. So a cold cache costs the database at most the
// allowance more than no cache, from the first second.
type loadBudget struct {
	allowance float64 // 0: no bound (FillAllowance ≥ FillDuty)
	credit    atomic.Int64
	saved     [2]atomic.Int64 // per kind: what a cold miss costs, ns (moving average)

	mu   sync.Mutex // the loaders' grant of the allowance
	last time.Time
}

// Kinds of answer whose hits save a store query.
const (
	savedNearby = iota
	savedBBox
)

// budgetCap bounds what hits bank: a warm minute pays for no more than a
// few seconds of loads after it (an edit storm that invalidates many
// tiles), which FillDuty then paces.
const budgetCap = int64(5 * time.Second)

func newLoadBudget(allowance, duty float64) *loadBudget {
	if allowance >= duty {
		allowance = 0 // the allowance alone pays for every load FillDuty lets run
	}
	return &loadBudget{allowance: allowance, last: time.Now()}
}

// missed records what a cold miss of kind cost the store.
func (b *loadBudget) missed(kind int, d time.Duration) {
	old := b.saved[kind].Load()
	if old == 0 {
		b.saved[kind].Store(int64(d))
		return
	}
	// 1/16 of a new sample: concurrent misses may each overwrite the
	// other's update, which an average of this kind can afford.
	b.saved[kind].Store(old + (int64(d)-old)/16)
}

// hit banks what an answer from memory saved.
func (b *loadBudget) hit(kind int) {
	if b.allowance == 0 {
		return
	}
	if s := b.saved[kind].Load(); s > 0 && b.credit.Load() < budgetCap {
		b.credit.Add(s)
	}
}

// spend charges a load that took d.
func (b *loadBudget) spend(d time.Duration) {
	if b.allowance > 0 {
		b.credit.Add(-int64(d))
	}
}

// wait returns once the budget has credit for a load; false when ctx ended
// meanwhile. It looks again at least every poll: hits bank credit sooner
// than the allowance would.
func (b *loadBudget) wait(ctx context.Context) bool {
	const poll = 100 * time.Millisecond
	for b.allowance > 0 {
		credit := b.grant(time.Now())
		if credit >= 0 {
			return true
		}
		if !guidepost.Sleep(ctx, min(time.Duration(float64(-credit)/b.allowance), poll)) {
			return false
		}
	}
	return ctx.Err() == nil
}

// grant adds the allowance for the time since the last grant and returns
// the credit.
func (b *loadBudget) grant(now time.Time) int64 {
	b.mu.Lock()
	add := int64(float64(now.Sub(b.last)) * b.allowance)
	b.last = now
	b.mu.Unlock()
	c := b.credit.Add(add)
	if c > budgetCap && b.credit.CompareAndSwap(c, budgetCap) {
		c = budgetCap
	}
	return c
}

// seconds is the credit, for the metric.
func (b *loadBudget) seconds() float64 {
	return time.Duration(b.credit.Load()).Seconds()
}
