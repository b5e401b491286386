package cache

import (
	"context"
	"errors"
	"sync"
)

// runner owns the cache's background work, in the shape of river's
// startstop: the goroutine closes stopped when it returns; Stop cancels,
// then waits on stopped. Stopping twice, or a cache never started, is
// fine.
type runner struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped chan struct{}
	err     error // what the version feed returned, once stopped
}

// errStarted refuses a second Start: one feed per cache.
var errStarted = errors.New("guides cache: already started")

// Start follows tile versions, polls like counts and (with Redis) shares
// loaded tiles, in the background until Stop or ctx ends. Until the feed
// has synced, every query goes to the store.
func (c *Guides) Start(ctx context.Context) error {
	c.run.mu.Lock()
	defer c.run.mu.Unlock()
	if c.run.stopped != nil {
		return errStarted
	}
	ctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	c.run.cancel, c.run.stopped = cancel, stopped
	go func() {
		defer close(stopped)
		c.run.err = c.follow(ctx)
	}()
	return nil
}

// Stop cancels the background work and returns once every goroutine the
// cache started, Redis calls included, has returned.
func (c *Guides) Stop() error {
	c.run.mu.Lock()
	cancel, stopped := c.run.cancel, c.run.stopped
	c.run.mu.Unlock()
	if stopped == nil {
		return nil
	}
	cancel()
	<-stopped
	return c.run.err
}

// Run is Start, then Stop once ctx ends.
func (c *Guides) Run(ctx context.Context) error {
	if err := c.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	return c.Stop()
}

// follow runs the version feed until ctx ends, beside the like poller, the
// tile loaders and the Redis tier's goroutines, and joins them all before
// returning.
func (c *Guides) follow(ctx context.Context) error {
	var wg sync.WaitGroup
	if c.redis != nil {
		wg.Go(func() { c.redisWriter(ctx) })
	}
	wg.Go(func() { c.namespace(ctx) }) // also names the database in stamps
	wg.Go(func() { c.pollLikes(ctx) })
	for range c.opt.FillConcurrency {
		wg.Go(func() { c.filler(ctx) })
	}
	err := c.src.WatchTiles(ctx, c)
	c.synced.Store(false)
	c.m.synced.Set(0)
	wg.Wait()
	c.calls.close()
	return err
}

// calls joins the goroutines that carry Redis calls (see redisCall): a
// request stops waiting for one at the Redis timeout, but the cache's Stop
// waits for all of them.
type calls struct {
	mu     sync.Mutex
	wg     sync.WaitGroup
	closed bool
}

var errStopped = errors.New("guides cache: stopped")

// goCall runs fn in a goroutine unless the cache has stopped.
func (c *calls) goCall(fn func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errStopped
	}
	c.wg.Go(fn)
	return nil
}

// close refuses new calls and waits for those under way.
func (c *calls) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
}
