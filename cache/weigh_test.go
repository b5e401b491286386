package cache

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
)

// An entry's weight covers the heap it really holds (its items, their
// strings as the database driver allocates them, byLat, the Encoded
// slots), so that L1Bytes bounds memory: the encoded forms the API adds
// later come on top of this and are weighed too.
func TestWeightCoversTheEntrysHeap(t *testing.T) {
	const n = 20_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tile := guides.Tile{ID: 1, Version: 1, Count: n, Items: make([]guides.Item, n)}
	for i := range tile.Items {
		// Fresh strings of the sizes the seed writes, as pgx scans them.
		tile.Items[i] = guides.Item{ID: uuid.NewString(), Title: fmt.Sprintf("Guide %d near the old market", i),
			Author: guides.Author{ID: uuid.NewString(), DisplayName: strings.Clone("traveller")},
			Lat:    37.5 + float64(i)*1e-7, Lng: 127.0, Tags: []string{strings.Clone("food"), strings.Clone("cafe")},
			CreatedAt: time.Now(), Cover: guides.Cover{MediaID: uuid.NewString(), ThumbHash: strings.Repeat("x", 28)}}
	}
	e := newEntry(1, tile, time.Now().UnixNano())
	tile.Items = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d items: %d bytes held, weight %d (%.2f×)", n, held, e.weight, float64(e.weight)/float64(held))
	if int64(e.weight) < held {
		t.Errorf("weight %d under the %d bytes the entry holds", e.weight, held)
	}
	runtime.KeepAlive(e)
}
