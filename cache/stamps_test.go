package cache

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/guidepost/guidepost/guides"
)

// The stamp of any rectangle, summed from blocks, is the sum of its tiles'
// stamps; a new version or like count changes exactly the rectangles that
// hold its tile; a full sync with the same state changes nothing, and the
// order changes arrive in does not matter.
func TestAreaStampsSumTheirTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	row0, col0 := guides.TileRow(37), guides.TileCol(126)
	randTile := func() int64 { return guides.TileID(row0+rng.Int64N(300), col0+rng.Int64N(300)) }
	a := newAreaStamps()
	all := map[int64]guides.TileState{}
	for range 3000 {
		tile := randTile()
		all[tile] = guides.TileState{Version: 1 + rng.Int64N(50)}
	}
	a.replace(all)
	counts, where := map[string]guides.LikeCount{}, map[string]int64{}
	for i := range 500 {
		id := strconv.Itoa(i)
		counts[id], where[id] = guides.LikeCount{N: rng.Int64N(9), Changes: rng.Int64()}, randTile()
	}
	a.likes(counts, where)

	brute := func(r0, r1, c0, c1 int64) uint64 {
		var s uint64
		for tile, ts := range a.tiles {
			if r, c := guides.TileRowCol(tile); r >= r0 && r <= r1 && c >= c0 && c <= c1 {
				s += ts.value(tile)
			}
		}
		return s
	}
	randRect := func() (int64, int64, int64, int64) {
		r0, c0 := row0-20+rng.Int64N(340), col0-20+rng.Int64N(340)
		return r0, r0 + rng.Int64N(200), c0, c0 + rng.Int64N(200)
	}
	for range 300 {
		r0, r1, c0, c1 := randRect()
		if got, want := a.sum(r0, r1, c0, c1), brute(r0, r1, c0, c1); got != want {
			t.Fatalf("rows %d..%d cols %d..%d: %x, want %x", r0, r1, c0, c1, got, want)
		}
	}

	for i := range 300 {
		r0, r1, c0, c1 := randRect()
		before := a.sum(r0, r1, c0, c1)
		var tile int64
		if i%2 == 0 {
			tile = randTile()
			a.version(tile, a.tiles[tile].version+1)
		} else {
			id := "new" + strconv.Itoa(i)
			tile = randTile()
			a.likes(map[string]guides.LikeCount{id: {N: int64(i), Changes: int64(i)}}, map[string]int64{id: tile})
		}
		r, c := guides.TileRowCol(tile)
		inside := r >= r0 && r <= r1 && c >= c0 && c <= c1
		if changed := a.sum(r0, r1, c0, c1) != before; changed != inside {
			t.Fatalf("a change in tile %d,%d (inside: %v) changed the stamp of rows %d..%d cols %d..%d: %v", r, c, inside, r0, r1, c0, c1, changed)
		}
	}

	// The same state, built in another order, gives the same stamps.
	now := map[int64]guides.TileState{}
	for tile, ts := range a.tiles {
		if ts.version > 0 {
			now[tile] = guides.TileState{Version: ts.version}
		}
	}
	b := newAreaStamps()
	liked := map[string]guides.LikeCount{}
	tiles := map[string]int64{}
	for id, lg := range a.liked {
		liked[id], tiles[id] = lg.count, lg.tile
	}
	b.likes(liked, tiles)
	b.replace(now)
	for range 100 {
		r0, r1, c0, c1 := randRect()
		if a.sum(r0, r1, c0, c1) != b.sum(r0, r1, c0, c1) {
			t.Fatalf("two histories of one state disagree on rows %d..%d cols %d..%d", r0, r1, c0, c1)
		}
	}
	whole := a.sum(0, 18000, 0, 36000)
	a.replace(now)
	if a.sum(0, 18000, 0, 36000) != whole {
		t.Fatal("a sync with the same versions changed the stamps")
	}
}

// A kept sum is never answered after a change to the stamps: with readers
// asking the same rectangles all along, each change is seen by the next
// sum, and so is a sync, also one that sets no tile.
func TestAreaStampsKeptSumsFollowChanges(t *testing.T) {
	row0, col0 := guides.TileRow(37), guides.TileCol(126)
	a := newAreaStamps()
	a.replace(map[int64]guides.TileState{guides.TileID(row0, col0): {Version: 1}})
	rects := [][4]int64{{row0 - 5, row0 + 5, col0 - 5, col0 + 5}, {row0, row0, col0, col0}, {row0 - 300, row0 + 300, col0 - 300, col0 + 300}}
	walked := func(r [4]int64) uint64 {
		a.mu.RLock()
		defer a.mu.RUnlock()
		return a.walk(r[0], r[1], r[2], r[3])
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				for _, r := range rects {
					a.sum(r[0], r[1], r[2], r[3])
				}
			}
		})
	}
	for i := range 500 {
		tile := guides.TileID(row0+int64(i%7)-3, col0+int64(i%5)-2)
		if i%2 == 0 {
			a.version(tile, int64(i+2))
		} else {
			a.likes(map[string]guides.LikeCount{"g": {N: int64(i), Changes: int64(i)}}, map[string]int64{"g": tile})
		}
		for _, r := range rects {
			if got, want := a.sum(r[0], r[1], r[2], r[3]), walked(r); got != want {
				t.Fatalf("change %d, rows %d..%d cols %d..%d: %x, the tiles say %x", i, r[0], r[1], r[2], r[3], got, want)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	if got := a.sum(rects[2][0], rects[2][1], rects[2][2], rects[2][3]); got != walked(rects[2]) {
		t.Fatalf("after a sync: %x, the tiles say %x", got, walked(rects[2]))
	}
	a = newAreaStamps()
	a.replace(map[int64]guides.TileState{guides.TileID(row0, col0): {Version: 1}})
	if a.sum(row0, row0, col0, col0) == 0 {
		t.Fatal("a tile with a version sums to 0")
	}
	a.replace(map[int64]guides.TileState{})
	if got := a.sum(row0, row0, col0, col0); got != 0 {
		t.Fatalf("after a sync that emptied the grid: %x, want 0", got)
	}
}
