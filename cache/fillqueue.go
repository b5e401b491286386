package cache

import (
	"container/heap"
	"sync"
)

// fillQueue holds the tiles waiting for a background load, each with how
// many misses asked for it while it waited; a loader takes the most asked
// first (the newest of equals), and reloads of entries still served before
// any load. After a restart the misses of a few seconds queue thousands of
// tiles, and the loaders, bound to FillDuty, load a few dozen a second: at
// 200 req/s of random map reads over 1 M guides, the first 5 s asked for
// 4,444 tiles and, taken in the order asked, 363 were loaded by 20 s. The
// tiles that many searches ask for answer many of the searches that
// follow: taken most asked first, 295 nearby reads were answered from
// memory by 20 s against 262 (BENCHMARKS.md, seventh stop).
type fillQueue struct {
	mu      sync.Mutex
	waiting map[int64]*fillWant
	loads   wantHeap           // waiting to load
	reloads wantHeap           // waiting to reload (served past RefreshAfter)
	taken   map[int64]struct{} // loading now
	seq     uint64
	pruned  uint64 // seq at the last prune
	max     int
	ready   chan struct{} // a token while tiles may be waiting
}

// fillQueueTiles bounds the tiles waiting (~1.5 MiB). At 200 req/s of
// random map reads over 1 M guides, the first 5 s after a restart asked for
// 4,444 tiles.
const fillQueueTiles = 1 << 14

// fillWant is a waiting tile.
type fillWant struct {
	id      int64
	asked   int    // misses (or stale serves) that asked for it
	last    uint64 // the queue's count when it was last asked
	refresh bool
	at      int // its index in its heap
}

func newFillQueue(max int) *fillQueue {
	return &fillQueue{waiting: map[int64]*fillWant{}, taken: map[int64]struct{}{}, max: max, ready: make(chan struct{}, 1)}
}

// add asks for ids; it returns how many were not waiting or loading
// before. A tile that is loading is not asked again; one that does not fit
// (max tiles waiting) is dropped: its next miss asks again.
func (q *fillQueue) add(ids []int64, refresh bool) (added int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range ids {
		if _, ok := q.taken[id]; ok {
			continue
		}
		q.seq++
		if w := q.waiting[id]; w != nil {
			w.asked++
			w.last = q.seq
			heap.Fix(q.heap(w.refresh), w.at)
			continue
		}
		if len(q.waiting) >= q.max && !q.prune() {
			continue
		}
		w := &fillWant{id: id, asked: 1, last: q.seq, refresh: refresh}
		q.waiting[id] = w
		heap.Push(q.heap(refresh), w)
		added++
	}
	if added > 0 {
		q.signal()
	}
	return added
}

func (q *fillQueue) heap(refresh bool) *wantHeap {
	if refresh {
		return &q.reloads
	}
	return &q.loads
}

// prune drops the waiting tiles not asked within the last max asks, so
// that tiles asked once long ago do not keep newer ones out; false when it
// dropped none, or pruned within the last max/4 asks (a full queue of
// recent tiles would otherwise be scanned at every ask).
func (q *fillQueue) prune() bool {
	if q.seq-q.pruned < uint64(q.max/4) {
		return false
	}
	q.pruned = q.seq
	before := len(q.waiting)
	for _, h := range []*wantHeap{&q.loads, &q.reloads} {
		kept := (*h)[:0]
		for _, w := range *h {
			if q.seq-w.last <= uint64(q.max) {
				w.at = len(kept)
				kept = append(kept, w)
			} else {
				delete(q.waiting, w.id)
			}
		}
		clear((*h)[len(kept):])
		*h = kept
		heap.Init(h)
	}
	return len(q.waiting) < before
}

// take hands a loader the first waiting tiles of one kind (reloads first)
// whose known guides add up to about batch (at least one tile), or none
// when nothing waits. guidesIn weighs a tile.
func (q *fillQueue) take(batch int, guidesIn func(int64) int) (ids []int64, refresh bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	h := &q.loads
	if refresh = q.reloads.Len() > 0; refresh {
		h = &q.reloads
	}
	for n := 0; h.Len() > 0; {
		w := (*h)[0]
		g := guidesIn(w.id)
		if len(ids) > 0 && n+g > batch {
			break
		}
		heap.Pop(h)
		n += g
		ids = append(ids, w.id)
		delete(q.waiting, w.id)
		q.taken[w.id] = struct{}{}
	}
	if len(q.waiting) > 0 {
		q.signal() // another loader may take the rest
	}
	return ids, refresh
}

// done ends the loads of ids (loaded, failed or given up).
func (q *fillQueue) done(ids []int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range ids {
		delete(q.taken, id)
	}
}

// size counts the tiles waiting or loading.
func (q *fillQueue) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting) + len(q.taken)
}

func (q *fillQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// wantHeap orders waiting tiles most asked first, then newest (container/heap).
type wantHeap []*fillWant

func (h wantHeap) Len() int { return len(h) }
func (h wantHeap) Less(i, j int) bool {
	if h[i].asked != h[j].asked {
		return h[i].asked > h[j].asked
	}
	return h[i].last > h[j].last
}
func (h wantHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].at, h[j].at = i, j
}
func (h *wantHeap) Push(x any) {
	w := x.(*fillWant)
	w.at = len(*h)
	*h = append(*h, w)
}
func (h *wantHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return w
}
