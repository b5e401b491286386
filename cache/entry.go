package cache

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
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
	answered atomic.Bool // a search read it (for the eviction metric)
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

// weigh is what e holds in memory, so that L1Bytes bounds the process's
// memory and not a notional size: per item its struct, its place in byLat,
// its Encoded slot, every string it points to (allocations round up to 16
// bytes), and the encoded form the API keeps in that slot once the item is
// answered (its strings once more, the JSON around them). The older
// estimate (244 bytes and the free-text strings) was about half of what an
// entry holds before any encoding (TestWeightCoversTheEntrysHeap), so the
// tier grew to about twice L1Bytes.
func (e *entry) weigh() {
	w := 96
	for i := range e.items {
		w += itemBytes(&e.items[i])
	}
	e.weight = uint32(min(w, math.MaxUint32))
}

// encodedJSON is an encoded item's JSON around its strings (keys, numbers,
// the created_at time, ~250 bytes) and its EncodedItem header.
const encodedJSON = 330

func itemBytes(it *cachedItem) int {
	held := allocBytes(it.ID) + allocBytes(it.Author.ID) + allocBytes(it.Author.DisplayName) + allocBytes(it.Title) +
		allocBytes(it.Cover.MediaID) + allocBytes(it.Cover.ThumbHash) + 16*cap(it.Tags) +
		int(unsafe.Sizeof(media.Variant{}))*cap(it.Cover.Variants)
	text := len(it.ID) + len(it.Author.ID) + len(it.Author.DisplayName) + len(it.Title) + len(it.Cover.MediaID) + len(it.Cover.ThumbHash)
	for _, t := range it.Tags {
		held, text = held+allocBytes(t), text+len(t)
	}
	for _, v := range it.Cover.Variants {
		held, text = held+allocBytes(v.Key), text+len(v.Key)+60
	}
	return int(unsafe.Sizeof(cachedItem{})) + 4 + 8 + held + text + encodedJSON
}

func allocBytes(s string) int { return (len(s) + 15) &^ 15 }
