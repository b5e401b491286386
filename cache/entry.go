package cache

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/guidepost/guidepost/guides"
)

// entry is one tile as cached.
type entry struct {
	tile     int64 // its key: a tile's number, or a part's (subKey)
	version  int64
	builtAt  int64 // unix nanos
	count    int
	tooLarge bool
	items    []cachedItem // newest first
	byLat    []int32      // items' indexes by latitude, for nearby's scan
	weight   uint32
}

type cachedItem struct {
	guides.Item
	pt      guides.Point
	sqrtCos float64 // √cos(lat), for the parallel-arc bound in scan
	builtAt int64   // the tile's, for the like overlay
}

func newCachedItem(it guides.Item, builtAt int64) cachedItem {
	it.Encoded = &guides.Encoded{}
	return cachedItem{Item: it, pt: guides.PointAt(it.Lat, it.Lng), sqrtCos: sqrtCos(it.Lat), builtAt: builtAt}
}

// item is what an answer shows of it: the cached item with the newest
// like count known.
func (c *Guides) item(it *cachedItem) guides.Item {
	out := it.Item
	// Shared with the cache and read-only; clipped so that an append copies.
	out.Tags = slices.Clip(it.Tags)
	if n, ok := c.likes.count(it.ID, it.builtAt); ok {
		out.LikeCount = n
	}
	return out
}

// newEntry is the entry under key (a tile's number, or a part's key) for
// what the store read.
func newEntry(key int64, t guides.Tile, builtAt int64) *entry {
	e := &entry{tile: key, version: t.Version, builtAt: builtAt, count: t.Count, tooLarge: t.TooLarge}
	e.items = make([]cachedItem, len(t.Items))
	for i, it := range t.Items {
		e.items[i] = newCachedItem(it, builtAt)
	}
	e.sortByLat()
	e.weigh()
	return e
}

func (e *entry) sortByLat() {
	e.byLat = make([]int32, len(e.items))
	for i := range e.byLat {
		e.byLat[i] = int32(i)
	}
	slices.SortFunc(e.byLat, func(a, b int32) int { return cmp.Compare(e.items[a].Lat, e.items[b].Lat) })
}

func (e *entry) age() time.Duration { return time.Duration(time.Now().UnixNano() - e.builtAt) }

func (e *entry) weigh() {
	w := 96
	for i := range e.items {
		it := &e.items[i]
		w += 244 + len(it.Title) + len(it.Author.DisplayName) + len(it.Cover.ThumbHash)
		for _, v := range it.Cover.Variants {
			w += 72 + len(v.Kind) + len(v.Format) + len(v.Key)
		}
		for _, t := range it.Tags {
			w += 16 + len(t)
		}
	}
	e.weight = uint32(min(w, math.MaxUint32))
}
