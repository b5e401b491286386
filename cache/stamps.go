package cache

import (
	"hash/fnv"
	"sync"
	"sync/atomic"

	"github.com/guidepost/guidepost/guides"
)

// areaStamps gives every grid tile a 64-bit stamp that changes whenever
// its version does or the like count of one of its guides does, and keeps
// the sums of the stamps over aligned blocks of 2^k × 2^k tiles, so that
// the stamp of any rectangle of tiles (the sum of its tiles' stamps) is a
// sum over a few blocks. A tile's stamp is a hash of (tile, version) plus
// one of (guide, like count, its changes) per liked guide, so a sum names
// the exact state of its tiles (up to a 2^-64 chance) whatever order the
// changes arrived in, two processes that know the same state agree on it,
// and no earlier state's stamp comes back (guides.LikeCount).
type areaStamps struct {
	mu     sync.RWMutex
	tiles  map[int64]tileStamp
	blocks [stampTop + 1]map[blockKey]uint64 // level k sums 2^k × 2^k tiles; level 0 is tiles
	liked  map[string]likedGuide

	// gen counts the changes (set); recent keeps the last sums asked,
	// each with the gen it was read at, so a hot map read's stamp is a
	// load and a compare while nothing changes, not a walk of the
	// blocks under the lock (a nearby circle's walk cost more than the
	// rest of its kept answer's handler).
	gen    atomic.Uint64
	recent [recentSums]atomic.Pointer[recentSum]
}

const recentSums = 256

type recentSum struct {
	rect [4]int64
	gen  uint64
	sum  uint64
}

// stampTop is the largest block level: 2^14 tiles (163.84°) on a side, so
// a few top blocks cover the whole grid.
const stampTop = 14

type blockKey struct{ r, c int64 }

type tileStamp struct {
	version int64
	likes   uint64 // sum of the hashes of its liked guides' (id, count)
}

type likedGuide struct {
	tile  int64
	count guides.LikeCount
}

func newAreaStamps() *areaStamps {
	a := &areaStamps{tiles: map[int64]tileStamp{}, liked: map[string]likedGuide{}}
	for k := 1; k <= stampTop; k++ {
		a.blocks[k] = map[blockKey]uint64{}
	}
	return a
}

// mix64 is SplitMix64's finaliser: a bijection whose outputs look
// independent, so sums of them collide only by chance.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func (t tileStamp) value(tile int64) uint64 {
	v := t.likes
	if t.version > 0 {
		v += mix64(mix64(uint64(tile)+0x9e3779b97f4a7c15) + uint64(t.version))
	}
	return v
}

func likeHash(id string, count guides.LikeCount) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return mix64(h.Sum64() ^ mix64(mix64(uint64(count.N)+0x632be59bd9b4e019)+uint64(count.Changes)))
}

// set replaces a tile's stamp and carries the difference up the blocks.
// Callers hold mu.
func (a *areaStamps) set(tile int64, ts tileStamp) {
	a.gen.Add(1) // under mu: no sum is read at the old gen from now on
	delta := ts.value(tile) - a.tiles[tile].value(tile)
	a.tiles[tile] = ts
	row, col := guides.TileRowCol(tile)
	for k := 1; k <= stampTop; k++ {
		key := blockKey{row >> k, col >> k}
		a.blocks[k][key] += delta // present from now on, even when 0
	}
}

// version records a tile's new version.
func (a *areaStamps) version(tile, version int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ts := a.tiles[tile]
	ts.version = version
	a.set(tile, ts)
}

// replace installs every tile's version at once (a sync), keeping what is
// known of likes, and rebuilds the blocks.
func (a *areaStamps) replace(all map[int64]guides.TileState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	tiles := make(map[int64]tileStamp, len(all))
	for tile, st := range all {
		tiles[tile] = tileStamp{version: st.Version}
	}
	for tile, ts := range a.tiles {
		if ts.likes != 0 {
			t := tiles[tile]
			t.likes = ts.likes
			tiles[tile] = t
		}
	}
	a.gen.Add(1) // even when no tile is set again: every sum is read anew
	a.tiles = map[int64]tileStamp{}
	for k := 1; k <= stampTop; k++ {
		a.blocks[k] = map[blockKey]uint64{}
	}
	for tile, ts := range tiles {
		a.set(tile, ts)
	}
}

// likes records like counts read from the database, with the tile each
// guide is in now; a guide missing from tiles (deleted meanwhile) is left.
func (a *areaStamps) likes(counts map[string]guides.LikeCount, tiles map[string]int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, n := range counts {
		tile, ok := tiles[id]
		if !ok {
			continue
		}
		old, known := a.liked[id]
		if known && old == (likedGuide{tile, n}) {
			continue
		}
		if known {
			ts := a.tiles[old.tile]
			ts.likes -= likeHash(id, old.count)
			a.set(old.tile, ts)
		}
		ts := a.tiles[tile]
		ts.likes += likeHash(id, n)
		a.set(tile, ts)
		a.liked[id] = likedGuide{tile, n}
	}
}

// sum is the stamp of tile rows r0..r1 and columns c0..c1: the one read
// at the current gen if it is kept, else walked now and kept.
func (a *areaStamps) sum(r0, r1, c0, c1 int64) uint64 {
	rect := [4]int64{r0, r1, c0, c1}
	slot := &a.recent[mix64(uint64(r0)^mix64(uint64(r1)^mix64(uint64(c0)^mix64(uint64(c1)))))%recentSums]
	if r := slot.Load(); r != nil && r.rect == rect && r.gen == a.gen.Load() {
		return r.sum
	}
	a.mu.RLock()
	gen, sum := a.gen.Load(), a.walk(r0, r1, c0, c1)
	a.mu.RUnlock()
	slot.Store(&recentSum{rect: rect, gen: gen, sum: sum})
	return sum
}

// walk sums the stamps over the blocks; callers hold mu.
func (a *areaStamps) walk(r0, r1, c0, c1 int64) uint64 {
	var s uint64
	for br := r0 >> stampTop; br <= r1>>stampTop; br++ {
		for bc := c0 >> stampTop; bc <= c1>>stampTop; bc++ {
			s += a.block(stampTop, br, bc, r0, r1, c0, c1)
		}
	}
	return s
}

// block sums the part of block (br, bc) of level k inside the rectangle:
// the whole block's sum when it lies inside, its four quarters' when it
// straddles an edge, nothing when no tile in it ever held a guide.
func (a *areaStamps) block(k int, br, bc, r0, r1, c0, c1 int64) uint64 {
	top, left := br<<k, bc<<k
	bottom, right := top+(1<<k)-1, left+(1<<k)-1
	if bottom < r0 || top > r1 || right < c0 || left > c1 {
		return 0
	}
	if k == 0 {
		ts, ok := a.tiles[guides.TileID(br, bc)]
		if !ok {
			return 0
		}
		return ts.value(guides.TileID(br, bc))
	}
	sum, ok := a.blocks[k][blockKey{br, bc}]
	if !ok {
		return 0
	}
	if top >= r0 && bottom <= r1 && left >= c0 && right <= c1 {
		return sum
	}
	var s uint64
	for dr := range int64(2) {
		for dc := range int64(2) {
			s += a.block(k-1, br<<1+dr, bc<<1+dc, r0, r1, c0, c1)
		}
	}
	return s
}
