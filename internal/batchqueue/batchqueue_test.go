package batchqueue_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/batchqueue"
)

// Close drains: every value sent before it is read by a worker before
// Close returns, and a send after it queues nothing.
func TestCloseDrainsWhatWasSent(t *testing.T) {
	var q batchqueue.Queue[int]
	var read atomic.Int64
	q.Start(4, 3, func() {
		for v := range q.C() {
			time.Sleep(time.Microsecond) // let senders get ahead of the workers
			read.Add(int64(v))
		}
	})
	var senders sync.WaitGroup
	var sent atomic.Int64
	for range 8 {
		senders.Go(func() {
			for range 100 {
				if ok, err := q.Send(context.Background(), 1); ok && err == nil {
					sent.Add(1)
				}
			}
		})
	}
	senders.Wait()
	q.Close()
	if got, want := read.Load(), sent.Load(); got != want || want != 800 {
		t.Fatalf("read %d of %d sent (want 800)", got, want)
	}
	if ok, err := q.Send(context.Background(), 1); ok || err != nil {
		t.Fatalf("a send after Close: sent %v, %v", ok, err)
	}
	q.Close() // twice is once
}

// A send that cannot be queued gives up with its context; sent stays true,
// for the queue was open (the caller does not fall back to working alone).
func TestSendHonoursItsContext(t *testing.T) {
	var q batchqueue.Queue[int]
	release := make(chan struct{})
	q.Start(1, 1, func() {
		<-release
		for range q.C() {
		}
	})
	if ok, err := q.Send(context.Background(), 1); !ok || err != nil {
		t.Fatal(ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if ok, err := q.Send(ctx, 2); !ok || err != context.DeadlineExceeded {
		t.Fatalf("a full queue: sent %v, %v", ok, err)
	}
	close(release)
	q.Close()
}
