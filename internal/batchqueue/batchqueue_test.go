package batchqueue_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/batchqueue"
)

// Close drains: every value sent before it is taken by a worker before
// Close returns, and a send after it queues nothing.
func TestCloseDrainsWhatWasSent(t *testing.T) {
	var q batchqueue.Queue[int]
	var read atomic.Int64
	q.Start(4, 3, func() {
		for {
			batch, ok := q.Next(nil, 5, 0)
			if !ok {
				return
			}
			time.Sleep(time.Microsecond) // let senders get ahead of the workers
			for _, v := range batch {
				read.Add(int64(v))
			}
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
		for {
			if _, ok := q.Next(nil, 1, 0); !ok {
				return
			}
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

// Next without a window takes what is queued, up to max, and never waits
// for more; with one it waits for more until max, or until the window
// ends; once the queue is closed and drained it says so.
func TestNextTakesABatch(t *testing.T) {
	var q batchqueue.Queue[int]
	q.Start(16, 0, nil)
	for i := range 5 {
		q.Send(context.Background(), i)
	}
	if got, _ := q.Next(nil, 3, 0); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("first batch %v", got)
	}
	if got, _ := q.Next(nil, 10, 0); !slices.Equal(got, []int{3, 4}) {
		t.Fatalf("second batch %v: it must not wait for more", got)
	}

	q.Send(context.Background(), 5)
	var late sync.WaitGroup
	late.Go(func() {
		time.Sleep(10 * time.Millisecond)
		q.Send(context.Background(), 6)
	})
	start := time.Now()
	got, ok := q.Next(nil, 2, time.Minute)
	late.Wait()
	if !ok || !slices.Equal(got, []int{5, 6}) || time.Since(start) > 30*time.Second {
		t.Fatalf("a window: %v %v after %s, want [5 6] as soon as the second came", got, ok, time.Since(start))
	}

	q.Send(context.Background(), 7)
	start = time.Now()
	if got, _ := q.Next(nil, 10, 50*time.Millisecond); !slices.Equal(got, []int{7}) || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("a window that ends: %v after %s", got, time.Since(start))
	}

	q.Send(context.Background(), 8)
	q.Close()
	if got, ok := q.Next(nil, 10, time.Minute); !ok || !slices.Equal(got, []int{8}) {
		t.Fatalf("a closed queue first drains: %v %v", got, ok)
	}
	if got, ok := q.Next(nil, 10, 0); ok || len(got) != 0 {
		t.Fatalf("then says closed: %v %v", got, ok)
	}
}
