package sql

import (
	"sync"
	"sync/atomic"
)

// tileMarks knows, per tile, a position of the primary's log at or past
// the commit of the tile's newest version this process knows: a replica
// that has replayed it holds that version. Positions are recorded before
// the cache hears of the version (the feed and this process's writes both
// go through here first), so the cache never knows a version whose
// position is not here yet.
type tileMarks struct {
	mu   sync.RWMutex
	base uint64           // every tile absent from m was last bumped before base
	m    map[int64]uint64 // tiles bumped since
	// newest is the position of the newest bump known: what a map read
	// that is not by tiles (a search in the database) must see to give
	// the answer of the versions the cache knows.
	newest atomic.Uint64
}

// bumped records that tiles got new versions, committed before lsn.
func (t *tileMarks) bumped(tiles []int64, lsn uint64) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[int64]uint64{}
	}
	for _, tile := range tiles {
		if lsn > t.m[tile] {
			t.m[tile] = lsn
		}
	}
	t.mu.Unlock()
	t.raiseNewest(lsn)
}

// synced records that every version was read before lsn.
func (t *tileMarks) synced(lsn uint64) {
	t.forget(lsn)
	t.raiseNewest(lsn)
}

// forget drops the tiles bumped before upto and counts them in the base:
// asking more of a replica than a tile needs is always safe.
func (t *tileMarks) forget(upto uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if upto <= t.base {
		return
	}
	t.base = upto
	for tile, lsn := range t.m {
		if lsn <= upto {
			delete(t.m, tile)
		}
	}
}

// need is the position a replica must have replayed to hold the known
// versions of tiles.
func (t *tileMarks) need(tiles []int64) uint64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n := t.base
	for _, tile := range tiles {
		n = max(n, t.m[tile])
	}
	return n
}

func (t *tileMarks) raiseNewest(lsn uint64) {
	for {
		old := t.newest.Load()
		if lsn <= old || t.newest.CompareAndSwap(old, lsn) {
			return
		}
	}
}
