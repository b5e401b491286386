// Package batchqueue is what stands between callers and the workers of a
// batching store (the group commit of likes, the batched session check in
// package sql), in the shape of river's startstop: callers send until it
// is closed; Close makes the workers drain what was sent, and returns once
// they have, so every request sent is answered. Next is how a worker
// takes a batch: everything queued up to a maximum, waiting a window for
// more or not at all, as the store's batching calls for.
package batchqueue

import (
	"context"
	"sync"
	"time"
)

// Queue carries requests of type T to the workers Start runs.
type Queue[T any] struct {
	mu     sync.RWMutex
	closed bool
	ch     chan T
	wg     sync.WaitGroup
}

// Start makes the channel (size slots) and runs workers copies of work,
// each taking batches with Next until it says the queue is closed.
func (q *Queue[T]) Start(size, workers int, work func()) {
	q.ch = make(chan T, size)
	for range workers {
		q.wg.Go(work)
	}
}

// Next waits for a request, then appends it and whatever follows to
// batch, up to max requests: those already queued when window is 0, or
// those that arrive within window of the first. ok is false once the
// queue is closed and drained: the worker returns.
func (q *Queue[T]) Next(batch []T, max int, window time.Duration) (_ []T, ok bool) {
	first, ok := <-q.ch
	if !ok {
		return batch, false
	}
	batch = append(batch, first)
	var timeout <-chan time.Time // nil: take only what is waiting
	if window > 0 {
		timer := time.NewTimer(window)
		defer timer.Stop()
		timeout = timer.C
	}
	for len(batch) < max {
		var v T
		if timeout == nil {
			select {
			case v, ok = <-q.ch:
			default:
				return batch, true
			}
		} else {
			select {
			case v, ok = <-q.ch:
			case <-timeout:
				return batch, true
			}
		}
		if !ok {
			return batch, true
		}
		batch = append(batch, v)
	}
	return batch, true
}

// Send queues v; sent is false when the queue is closed (nothing queued).
func (q *Queue[T]) Send(ctx context.Context, v T) (sent bool, err error) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return false, nil
	}
	select {
	case q.ch <- v:
		return true, nil
	case <-ctx.Done():
		return true, ctx.Err()
	}
}

// Close stops the queue and waits for the workers; twice is once.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
	q.mu.Unlock()
	q.wg.Wait()
}

// Worker is a worker for Start: it takes batches with Next (up to max,
// waiting window) and hands each to write, until the queue is closed
// and drained.
func (q *Queue[T]) Worker(max int, window time.Duration, write func(batch []T)) func() {
	return func() {
		batch := make([]T, 0, max)
		for {
			var ok bool
			if batch, ok = q.Next(batch[:0], max, window); !ok {
				return
			}
			write(batch)
		}
	}
}

// Await sends v and waits for its answer on done (which its worker
// fills, buffered so that a worker never waits on a caller), or for ctx.
// sent is false when the queue is closed: nothing was sent, and the
// caller does the work by itself.
func Await[T, R any](ctx context.Context, q *Queue[T], v T, done <-chan R) (r R, sent bool, err error) {
	if sent, err := q.Send(ctx, v); !sent || err != nil {
		return r, sent, err
	}
	select {
	case r = <-done:
		return r, true, nil
	case <-ctx.Done():
		return r, true, ctx.Err()
	}
}
