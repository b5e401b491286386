// Package batchqueue is what stands between callers and the workers of a
// batching store (the group commit of likes, the batched session check in
// package sql), in the shape of river's startstop: callers send until it
// is closed; Close makes the workers drain what was sent, and returns once
// they have, so every request sent is answered. It holds no batching
// policy: each worker takes from C as its batch calls for.
package batchqueue

import (
	"context"
	"sync"
)

// Queue carries requests of type T to the workers Start runs.
type Queue[T any] struct {
	mu     sync.RWMutex
	closed bool
	ch     chan T
	wg     sync.WaitGroup
}

// Start makes the channel (size slots) and runs workers copies of work,
// each reading C until it is closed and empty.
func (q *Queue[T]) Start(size, workers int, work func()) {
	q.ch = make(chan T, size)
	for range workers {
		q.wg.Go(work)
	}
}

// C is what the workers read: closed, once drained, after Close.
func (q *Queue[T]) C() <-chan T { return q.ch }

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
