package cache_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	gsql "github.com/guidepost/guidepost/sql"
)

// gatedStore counts the searches the cache hands to the database and
// holds each until the gate opens; loadCounter counts tile loads.
type gatedStore struct {
	*gsql.Guides
	searches atomic.Int64
	gate     chan struct{}
	opened   sync.Once
}

// open lets every held search through, once however often it is called:
// a test defers it so that a failure before its own call leaves no search
// (and no caller goroutine) waiting for ever.
func (s *gatedStore) open() { s.opened.Do(func() { close(s.gate) }) }

func (s *gatedStore) Nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	s.searches.Add(1)
	<-s.gate
	return s.Guides.Nearby(ctx, q)
}

func (s *gatedStore) InBBox(ctx context.Context, q guides.BBoxQuery) ([]guides.Item, bool, error) {
	s.searches.Add(1)
	<-s.gate
	return s.Guides.InBBox(ctx, q)
}

type loadCounter struct {
	*gsql.Guides
	loads atomic.Int64
}

func (s *loadCounter) LoadTiles(ctx context.Context, tiles []int64, maxGuides int) ([]guides.Tile, error) {
	s.loads.Add(1)
	return s.Guides.LoadTiles(ctx, tiles, maxGuides)
}

// coldCache is a synced cache with no tile loaded, over a store whose
// searches wait for the gate.
func coldCache(t *testing.T, opt cache.Config) (*cache.Guides, *gatedStore, *loadCounter) {
	t.Helper()
	_, store := seeded(t)
	gated := &gatedStore{Guides: store, gate: make(chan struct{})}
	src := &loadCounter{Guides: store}
	c := cache.New(cache.Deps{Store: gated, Source: src, Registerer: prometheus.NewRegistry()}, opt)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	waitUntil(t, 10*time.Second, "cache synced", c.Ready)
	return c, gated, src
}

// Identical misses under way at once cost the database one query, and
// each caller gets its own copy of the answer.
func TestColdMissesShareOneQuery(t *testing.T) {
	c, store, _ := coldCache(t, cache.Config{})
	q := guides.NearbyQuery{Lat: 37.5665, Lng: 126.978, RadiusM: 2000, Limit: 20}
	b := guides.BBoxQuery{BBox: guides.BBox{MinLng: 126.97, MinLat: 37.56, MaxLng: 126.99, MaxLat: 37.59}, Limit: 50}
	const callers = 8
	near := make([][]guides.Item, callers)
	boxes := make([][]guides.Item, callers)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer store.open()
	for i := range callers {
		wg.Go(func() {
			var err error
			if near[i], err = c.Nearby(context.Background(), q); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			var err error
			if boxes[i], _, err = c.InBBox(context.Background(), b); err != nil {
				t.Error(err)
			}
		})
	}
	// Every caller has reached the cache once both flights are held.
	waitUntil(t, 10*time.Second, "both misses in the store", func() bool { return store.searches.Load() >= 2 })
	time.Sleep(100 * time.Millisecond)
	store.open()
	wg.Wait()
	if n := store.searches.Load(); n != 2 {
		t.Fatalf("%d identical nearby and %d identical viewport misses made %d database searches, want 2", callers, callers, n)
	}
	want, err := store.Guides.Nearby(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for i := range callers {
		if d := sameItems(near[i], want); d != "" {
			t.Fatalf("caller %d: %s", i, d)
		}
		if len(boxes[i]) == 0 {
			t.Fatalf("caller %d: empty viewport", i)
		}
	}
	near[0][0].LikedByMe = true // the service sets per-viewer fields on its copy
	if near[1][0].LikedByMe {
		t.Fatal("callers share one slice of items")
	}
}

// While a miss waits on the database, the background loaders do not add
// a tile load to its queue; once none waits they load.
func TestLoadsWaitForQuietDatabase(t *testing.T) {
	c, store, src := coldCache(t, cache.Config{FillWait: time.Minute, FillOnMiss: 1})
	done := make(chan struct{})
	defer func() { store.open(); <-done }()
	go func() {
		defer close(done)
		if _, err := c.Nearby(context.Background(), guides.NearbyQuery{Lat: 37.5665, Lng: 126.978, RadiusM: 3000, Limit: 20}); err != nil {
			t.Error(err)
		}
	}()
	waitUntil(t, 10*time.Second, "the miss in the store", func() bool { return store.searches.Load() == 1 })
	time.Sleep(300 * time.Millisecond) // what the loaders would take to start a load
	if n := src.loads.Load(); n != 0 {
		t.Fatalf("%d tile loads ran while a miss waited on the database", n)
	}
	store.open()
	<-done
	waitUntil(t, 10*time.Second, "tile loads once the database is quiet", func() bool { return src.loads.Load() > 0 })
}
