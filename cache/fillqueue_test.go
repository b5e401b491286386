package cache

import (
	"slices"
	"sync"
	"testing"
)

// The loaders take the tiles most asked for first, the newest of equals,
// and reloads of served entries before any load; a batch stops at about
// its guides.
func TestFillQueueTakesTheMostAskedFirst(t *testing.T) {
	q := newFillQueue(100)
	ten := func(int64) int { return 10 }
	if n := q.add([]int64{1, 2, 3, 4}, false); n != 4 {
		t.Fatalf("added %d of 4 new tiles", n)
	}
	q.add([]int64{3}, false)
	q.add([]int64{2, 3}, false)
	if n := q.add([]int64{3, 5}, false); n != 1 {
		t.Fatalf("added %d: want only 5 new", n)
	}
	// asked: 3 ×4, 2 ×2, 5 ×1 (newest), 4, 1
	var order []int64
	for {
		ids, refresh := q.take(10, ten)
		if len(ids) == 0 {
			break
		}
		if refresh || len(ids) != 1 {
			t.Fatalf("took %v (refresh %v): want one load a batch of 10 guides", ids, refresh)
		}
		order = append(order, ids...)
	}
	if want := []int64{3, 2, 5, 4, 1}; !slices.Equal(order, want) {
		t.Errorf("taken in the order %v, want %v", order, want)
	}

	q.add([]int64{7, 8, 9}, false)
	q.add([]int64{6}, true)
	if ids, refresh := q.take(25, ten); !refresh || !slices.Equal(ids, []int64{6}) {
		t.Errorf("first take %v (refresh %v): want the reload of 6 alone", ids, refresh)
	}
	if ids, _ := q.take(25, ten); len(ids) != 2 {
		t.Errorf("a batch of 25 guides took %v: want two tiles of 10", ids)
	}
}

// A tile being loaded is not queued again, and comes back once done; the
// queue drops new tiles past its bound.
func TestFillQueueBoundsAndLoading(t *testing.T) {
	q := newFillQueue(2)
	none := func(int64) int { return 0 }
	if n := q.add([]int64{1, 2, 3}, false); n != 2 || q.size() != 2 {
		t.Fatalf("added %d, size %d: want 2 of 3 with a bound of 2", n, q.size())
	}
	ids, _ := q.take(500, none)
	if len(ids) != 2 {
		t.Fatalf("took %v: want both (tiles of no known guides weigh nothing)", ids)
	}
	if n := q.add(ids, false); n != 0 || q.size() != 2 {
		t.Fatalf("re-asking loading tiles added %d (size %d)", n, q.size())
	}
	q.done(ids)
	if q.size() != 0 {
		t.Fatalf("size %d after done", q.size())
	}
	if n := q.add(ids, false); n != 2 {
		t.Fatalf("after done, added %d of 2", n)
	}
}

// Loaders and misses at once: every tile asked is taken exactly once
// while it waits (go test -race).
func TestFillQueueConcurrent(t *testing.T) {
	q := newFillQueue(1 << 14)
	one := func(int64) int { return 1 }
	var mu sync.Mutex
	taken := map[int64]int{}
	var askers, loaders sync.WaitGroup
	stop := make(chan struct{})
	for a := range 4 {
		askers.Go(func() {
			for i := range 2000 {
				q.add([]int64{int64(a*2000 + i), int64(i % 50)}, false)
			}
		})
	}
	for range 2 {
		loaders.Go(func() {
			for {
				ids, _ := q.take(8, one)
				if len(ids) == 0 {
					select {
					case <-stop:
						return
					case <-q.ready:
						continue
					}
				}
				mu.Lock()
				for _, id := range ids {
					taken[id]++
				}
				mu.Unlock()
				// not done: a tile taken stays taken, so none is taken twice
			}
		})
	}
	askers.Wait()
	close(stop)
	loaders.Wait()
	for ids, _ := q.take(1<<20, one); len(ids) > 0; ids, _ = q.take(1<<20, one) {
		for _, id := range ids {
			taken[id]++
		}
	}
	if len(taken) != 8000 {
		t.Errorf("%d distinct tiles taken, want 8,000", len(taken))
	}
	for id, n := range taken {
		if n != 1 {
			t.Fatalf("tile %d taken %d times", id, n)
		}
	}
}

// A full queue drops the tiles not asked within its last bound's asks to
// make room for new ones.
func TestFillQueuePrunesOldAsks(t *testing.T) {
	q := newFillQueue(8)
	q.add([]int64{1, 2, 3, 4, 5, 6, 7, 8}, false)
	for range 3 {
		q.add([]int64{7, 8}, false) // 1–6 fall behind
	}
	if n := q.add([]int64{9}, false); n != 1 {
		t.Fatalf("a new tile into a full queue of old asks: added %d", n)
	}
	var left []int64
	for ids, _ := q.take(100, func(int64) int { return 1 }); len(ids) > 0; ids, _ = q.take(100, func(int64) int { return 1 }) {
		left = append(left, ids...)
	}
	slices.Sort(left)
	if !slices.Equal(left, []int64{7, 8, 9}) {
		t.Errorf("waiting after the prune: %v, want 7, 8, 9", left)
	}
}
