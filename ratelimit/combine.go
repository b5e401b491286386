package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Takes are combined: a storm of requests (1,000 users double-tapping
// like) is thousands of limit checks at once, and one Redis round trip
// each queued them behind the client's pool (23 ms a like on average in
// such a storm). A take joins the pending list; whoever gets one of
// maxRunning runner slots takes the whole list (up to maxBatch) and spends
// it in one script call. A lone take runs at once, as before; no
// goroutine is started, and every take is run by its own caller or by
// another that came while it waited.
const (
	maxRunning = 4
	maxBatch   = 256
)

type take struct {
	key    string
	count  int
	period time.Duration
	n      int
	res    gcraResult
	err    error
	done   chan struct{} // closed once res and err are set
}

type combiner struct {
	mu      sync.Mutex
	pending []*take
	slots   chan struct{}
	run     func(ctx context.Context, batch []*take) // sets every take's res or err
}

func newCombiner(run func(context.Context, []*take)) *combiner {
	return &combiner{slots: make(chan struct{}, maxRunning), run: run}
}

// do returns t's result, or ctx's error when ctx ends first (t may still be
// spent later by another caller's batch: the request it stood for went on
// unchecked, as when Redis fails).
func (c *combiner) do(ctx context.Context, t *take) error {
	t.done = make(chan struct{})
	c.mu.Lock()
	c.pending = append(c.pending, t)
	c.mu.Unlock()
	for {
		select { // a result already here is taken before any slot
		case <-t.done:
			return t.err
		default:
		}
		select {
		case <-t.done:
			return t.err
		case <-ctx.Done():
			return late(ctx, t)
		case c.slots <- struct{}{}:
			batch := c.next()
			if len(batch) > 0 {
				c.run(ctx, batch)
				for _, b := range batch {
					close(b.done)
				}
			}
			<-c.slots
			if len(batch) == 0 {
				// Nothing pending: t is in another runner's batch. Wait for
				// it, not for a slot, or this loop spins until it ends.
				select {
				case <-t.done:
					return t.err
				case <-ctx.Done():
					return late(ctx, t)
				}
			}
		}
	}
}

// late is what a caller whose ctx ended gets: t's result if it came at the
// same moment (select picks among ready cases at random), else ctx's error.
func late(ctx context.Context, t *take) error {
	select {
	case <-t.done:
		return t.err
	default:
		return ctx.Err()
	}
}

// next takes up to maxBatch pending takes, oldest first.
func (c *combiner) next() []*take {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(len(c.pending), maxBatch)
	batch := c.pending[:n:n]
	c.pending = c.pending[n:]
	if len(c.pending) == 0 {
		c.pending = nil
	}
	return batch
}
