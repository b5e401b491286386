package cache

import (
	"sync"
	"time"

	"github.com/maypok86/otter/v2"
)

// doorkeeper admits a tile to a background load on its second miss
// within the last doorkeeperKeys distinct misses, not its first, when
// FillOnMiss is 2, or auto with L1 full (secondMiss). L1's
// admission (TinyLFU) already refuses room to an entry asked for once,
// but only after the load has paid for it: with random map reads over
// 1 M guides, 52,894 of 54,451 entries left L1 without answering a
// search (guidepost_guides_cache_l1_evictions_total), and each load took
// the database's time beside the misses. A tile missed once is read by
// the database's answer anyway; one missed twice is worth keeping.
type doorkeeper struct {
	mu        sync.Mutex
	cur, prev map[int64]struct{}
	size      int
}

// doorkeeperKeys is how many distinct missed tiles one generation
// remembers (two generations: ~2 MiB at most).
const doorkeeperKeys = 1 << 15

func newDoorkeeper(size int) *doorkeeper {
	return &doorkeeper{cur: make(map[int64]struct{}, size), prev: map[int64]struct{}{}, size: size}
}

// admit returns the ids of ids missed before (to load now), and
// remembers the others.
func (d *doorkeeper) admit(ids []int64) []int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := ids[:0:0]
	for _, id := range ids {
		_, inCur := d.cur[id]
		_, inPrev := d.prev[id]
		if inCur || inPrev {
			out = append(out, id)
			continue
		}
		if len(d.cur) >= d.size {
			d.prev, d.cur = d.cur, make(map[int64]struct{}, d.size)
		}
		d.cur[id] = struct{}{}
	}
	return out
}

// fullFor is how long after its last eviction for room L1 counts as full:
// a full L1 under misses evicts many times a second (every load takes an
// entry's room or is refused), so a quiet spell this long means room.
const fullFor = 10 * time.Second

// secondMiss says whether a missed tile waits for its second miss
// (FillOnMiss).
func (c *Guides) secondMiss() bool {
	switch c.opt.FillOnMiss {
	case 1:
		return false
	case FillOnMissAuto:
		return c.full(time.Now())
	}
	return true
}

func (c *Guides) full(now time.Time) bool {
	at := c.fullAt.Load()
	return at != 0 && now.UnixNano()-at < int64(fullFor)
}

// deleted is L1's deletion hook: it counts evictions and notes when L1
// last made room.
func (c *Guides) deleted(e otter.DeletionEvent[int64, *entry]) {
	if e.Cause == otter.CauseOverflow {
		c.fullAt.Store(time.Now().UnixNano())
	}
	c.m.evicted(e)
}
