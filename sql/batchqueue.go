package sql

import (
	"context"
	"sync"
)

// batchQueue is what stands between callers and the workers of a batching
// store (like committers, session-check readers), in the shape of river's
// startstop: callers send until it is closed; close makes the workers
// drain what was sent, and returns once they have, so every request sent
// is answered.
type batchQueue[T any] struct {
	mu     sync.RWMutex
	closed bool
	ch     chan T
	wg     sync.WaitGroup
}

// start makes the channel (size slots) and runs workers copies of work,
// each reading q.ch until it is closed and empty.
func (q *batchQueue[T]) start(size, workers int, work func()) {
	q.ch = make(chan T, size)
	for range workers {
		q.wg.Go(work)
	}
}

// send queues v; sent is false when the queue is closed (nothing queued).
func (q *batchQueue[T]) send(ctx context.Context, v T) (sent bool, err error) {
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

// close stops the queue and waits for the workers; twice is once.
func (q *batchQueue[T]) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
	q.mu.Unlock()
	q.wg.Wait()
}
