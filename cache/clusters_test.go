package cache_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	gsql "github.com/guidepost/guidepost/sql"
)

// A clustering from memory is the database's, for any viewport, zoom and
// tag, asked once (counted by PostgreSQL) or again (kept); what a caller
// does to the slice it gets does not reach the kept answer; and after a
// write in its area the next answer is the database's new one.
func TestCachedClustersEqualTheDatabase(t *testing.T) {
	ctx := context.Background()
	db, store := seeded(t)
	c := startCache(t, store, nil, cache.Config{})
	rng := rand.New(rand.NewPCG(5, 6))
	var queries []guides.ClusterQuery
	for i := range 200 {
		q := randomQuery(rng)
		zoom := rng.IntN(17)
		w := 0.01 * float64(int(1)<<max(0, 13-zoom)) * (1 + rng.Float64()*8) // a few cells wide
		b := guides.BBox{MinLng: max(q.Lng-w, -180), MinLat: max(q.Lat-w/2, -85), MaxLng: min(q.Lng+w, 180), MaxLat: min(q.Lat+w/2, 85)}
		if i%10 == 0 {
			b = guides.BBox{MinLng: -180, MinLat: -85, MaxLng: 180, MaxLat: 85}
			zoom = rng.IntN(5)
		}
		queries = append(queries, guides.ClusterQuery{BBox: b, Zoom: zoom, Tag: q.Tag, WithTop: i%4 == 1})
	}
	check := func(q guides.ClusterQuery, what string) {
		t.Helper()
		want, err := store.Clusters(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			got, err := c.Clusters(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !sameClusters(got, want) {
				t.Fatalf("%s %+v:\n got %+v\nwant %+v", what, q, got, want)
			}
			for i := range got { // as the service rounds in place
				got[i].Count, got[i].Lat = -1, 0
			}
		}
	}
	for _, q := range queries {
		check(q, "clusters")
	}
	if n := c.value("guidepost_guides_cache_clusters_total", "hit"); n < 200 {
		t.Errorf("only %.0f clusterings answered from memory", n)
	}

	author := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: author, DisplayName: "w", Guest: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	g := guides.NewGuide{ID: uuid.Must(uuid.NewV7()).String(), AuthorID: author, Title: "new", Lat: 36.1, Lng: 128.1,
		Tags: []string{"food"}, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if err := gsql.NewGuides(db).CreateGuide(ctx, g); err != nil { // another process's write
		t.Fatal(err)
	}
	world := guides.ClusterQuery{BBox: guides.BBox{MinLng: -180, MinLat: -85, MaxLng: 180, MaxLat: 85}, Zoom: 3}
	want, _ := store.Clusters(ctx, world)
	waitUntil(t, time.Second, "the new guide in the world's clusters", func() bool {
		got, _ := c.Clusters(ctx, world)
		return sameClusters(got, want)
	})
	for _, q := range queries {
		check(q, "after a write")
	}
}

// sameClusters compares clusterings with coordinates to a nanodegree
// (0.1 mm): PostgreSQL sums a cluster's coordinates in scan order, so two
// runs of one query may differ in the last bits of a centre.
func sameClusters(got, want []guides.Cluster) bool {
	if len(got) != len(want) || (got == nil) != (want == nil) {
		return false
	}
	near := func(g *float64, w float64) {
		if math.Abs(*g-w) < 1e-9 {
			*g = w
		}
	}
	g := slices.Clone(got)
	for i := range g {
		c, w := &g[i], want[i]
		near(&c.Lat, w.Lat)
		near(&c.Lng, w.Lng)
		near(&c.Bounds.MinLng, w.Bounds.MinLng)
		near(&c.Bounds.MinLat, w.Bounds.MinLat)
		near(&c.Bounds.MaxLng, w.Bounds.MaxLng)
		near(&c.Bounds.MaxLat, w.Bounds.MaxLat)
	}
	return reflect.DeepEqual(g, want)
}

// concurrentClusters is the store, counting how many clusterings it is
// computing at once.
type concurrentClusters struct {
	guides.Store
	now, most atomic.Int32
}

func (s *concurrentClusters) Clusters(ctx context.Context, q guides.ClusterQuery) ([]guides.Cluster, error) {
	n := s.now.Add(1)
	defer s.now.Add(-1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	return s.Store.Clusters(ctx, q)
}

// VectorTile counts with Clusters: a low-zoom tile is a wide clustering.
func (s *concurrentClusters) VectorTile(ctx context.Context, q guides.VectorTileQuery) ([]byte, error) {
	n := s.now.Add(1)
	defer s.now.Add(-1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	return s.Store.VectorTile(ctx, q)
}

// Low-zoom vector tiles (each cut from a wide clustering) take their turn
// with the wide clusterings: a map's first screen of them is cut one at a
// time, each still the store's bytes, while a zoom-12 tile waits for none.
func TestWideVectorTilesAreCutOneAtATime(t *testing.T) {
	ctx := context.Background()
	c, store, counting := countingCache(t)
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			q := guides.VectorTileQuery{Z: 4, X: 13 + i%2, Y: 5 + i/2%2, Tag: []string{"", "food", "cafe", "night"}[i/4]}
			got, err := c.VectorTile(ctx, q)
			if err == nil {
				want, _ := store.VectorTile(ctx, q)
				if !bytes.Equal(got, want) {
					err = fmt.Errorf("tile %+v: %d bytes, want %d", q, len(got), len(want))
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if m := counting.most.Load(); m != 1 {
		t.Fatalf("%d wide tiles cut at once, want 1", m)
	}
}

// Clusterings of wide areas that miss the memo (a panned world map) are
// counted in PostgreSQL one at a time, however many arrive at once, and
// each still gets the database's answer; narrow ones are not held back.
func TestWideClusteringsAreCountedOneAtATime(t *testing.T) {
	ctx := context.Background()
	c, store, counting := countingCache(t)
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			d := float64(i) * 0.001 // a different box each time, as a panned map
			q := guides.ClusterQuery{BBox: guides.BBox{MinLng: -180 + d, MinLat: -85, MaxLng: 180 - d, MaxLat: 85}, Zoom: 2}
			got, err := c.Clusters(ctx, q)
			if err == nil {
				want, _ := store.Clusters(ctx, q)
				if !sameClusters(got, want) {
					err = fmt.Errorf("box %d: got %+v, want %+v", i, got, want)
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if m := counting.most.Load(); m != 1 {
		t.Fatalf("%d wide clusterings computed at once, want 1", m)
	}
}

// countingCache is a started, synced cache over the seeded store, whose
// clusterings and vector tiles count how many run at once.
func countingCache(t *testing.T) (*cache.Guides, guides.Store, *concurrentClusters) {
	_, store := seeded(t)
	counting := &concurrentClusters{Store: store}
	c := cache.New(cache.Deps{Store: counting, Source: store, Registerer: prometheus.NewRegistry()}, cache.Config{})
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	waitUntil(t, 10*time.Second, "cache synced", c.Ready)
	return c, store, counting
}
