package api

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// lazyDeadline is context.WithDeadline without its timer until someone
// waits: most answers (a kept map answer, a 304) never wait on anything,
// and a timer started and stopped per request cost them a lock on the
// runtime's timer heap and four allocations. The first Done (a query, a
// call to Redis, a derived context) makes the real context, which counts
// from the same deadline; until then Deadline and Err answer from the
// clock. A zero at is no deadline (yet): the context is its parent's
// until the /v1 step sets one, before any handler has seen it.
type lazyDeadline struct {
	parent context.Context
	at     time.Time

	mu      sync.Mutex                // makes the real context once
	real    atomic.Pointer[deadlined] // nil until the first Done
	stopped atomic.Bool               // the handler returned: the context is cancelled
}

type deadlined struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func withLazyDeadline(parent context.Context, at time.Time) *lazyDeadline {
	return &lazyDeadline{parent: parent, at: at}
}

// made is the real context, made now if need be; after stop, cancelled.
func (c *lazyDeadline) made() context.Context {
	if r := c.real.Load(); r != nil {
		return r.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.real.Load()
	if r == nil {
		r = &deadlined{}
		r.ctx, r.cancel = context.WithDeadline(c.parent, c.at)
		if c.stopped.Load() {
			r.cancel()
		}
		c.real.Store(r)
	}
	return r.ctx
}

// setDeadline starts the deadline; only before the context is handed on.
func (c *lazyDeadline) setDeadline(at time.Time) { c.at = at }

func (c *lazyDeadline) Deadline() (time.Time, bool) {
	if c.at.IsZero() {
		return c.parent.Deadline()
	}
	if d, ok := c.parent.Deadline(); ok && d.Before(c.at) {
		return d, true
	}
	return c.at, true
}

func (c *lazyDeadline) Done() <-chan struct{} {
	if c.at.IsZero() {
		return c.parent.Done()
	}
	return c.made().Done()
}

// Err is the parent's error, or DeadlineExceeded once the deadline has
// passed (Canceled once the handler returned); then the real context is
// made (closed at once), so Done, Err and context.Cause agree from then on.
func (c *lazyDeadline) Err() error {
	if r := c.real.Load(); r != nil {
		return r.ctx.Err()
	}
	if c.at.IsZero() {
		return c.parent.Err()
	}
	if c.parent.Err() != nil || c.stopped.Load() || !time.Now().Before(c.at) {
		return c.made().Err()
	}
	return nil
}

// Value asks the real context once it exists: context.Cause and the
// contexts derived from this one then find its cancellation.
func (c *lazyDeadline) Value(key any) any {
	if r := c.real.Load(); r != nil {
		return r.ctx.Value(key)
	}
	return c.parent.Value(key)
}

// AfterFunc lets context.WithCancel and its siblings attach to this
// context without a goroutine each (context's afterFuncer).
func (c *lazyDeadline) AfterFunc(f func()) func() bool {
	if c.at.IsZero() {
		return context.AfterFunc(c.parent, f)
	}
	return context.AfterFunc(c.made(), f)
}

// stop cancels the context as the handler returns, releasing the timer if
// one was started.
func (c *lazyDeadline) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped.Store(true)
	if r := c.real.Load(); r != nil {
		r.cancel()
	}
}
