package cache_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	gsql "github.com/guidepost/guidepost/sql"
)

// denseConfig makes the seed's dense block (~1,500 guides per tile) tiles
// over the cap: each is cached as 8×8 parts.
var denseConfig = cache.Config{MaxTileGuides: 200}

func denseQuery(rng *rand.Rand) guides.NearbyQuery {
	q := guides.NearbyQuery{Lat: dense.lat + (rng.Float64()-0.5)*0.024, Lng: dense.lng + (rng.Float64()-0.5)*0.024,
		RadiusM: math.Exp(rng.Float64() * math.Log(5_000)), // 1 m – 5 km, log-uniform
		Limit:   1 + rng.IntN(100)}
	if rng.IntN(10) == 0 {
		q.Lat, q.Lng = twins.lat, twins.lng
	}
	if rng.IntN(4) == 0 {
		q.Tag = []string{"food", "cafe", "night"}[rng.IntN(3)]
	}
	return q
}

// Tiles over MaxTileGuides are answered from their parts, and the answers
// are the database's: random points in and around the dense block, radii,
// limits, tags and cursor pages.
func TestDenseTilesNearbyFromPartsEqualsTheDatabase(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	c := startCache(t, store, nil, denseConfig)
	rng := rand.New(rand.NewPCG(7, 8))
	pages, fromParts := 0, 0
	for i := range 300 {
		q := denseQuery(rng)
		for page := 0; page < 3; page++ {
			want, err := store.Nearby(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			warmUp(t, c, func() { c.Nearby(ctx, q) })
			before := c.value("guidepost_guides_cache_dense_answers_total", "nearby")
			got, err := c.Nearby(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameItems(got, want); diff != "" {
				t.Fatalf("query %d page %d %+v:\n%s", i, page, q, diff)
			}
			pages++
			if c.value("guidepost_guides_cache_dense_answers_total", "nearby") > before {
				fromParts++
			}
			if len(want) < q.Limit || len(want) == 0 {
				break
			}
			last := want[len(want)-1]
			q.After = &guides.Position{DistanceM: last.DistanceM, ID: last.ID}
		}
	}
	t.Logf("%d warm pages compared, %d answered from parts; fallbacks: too_large %.0f, too_many_guides %.0f",
		pages, fromParts, c.value("guidepost_guides_cache_fallbacks_total", "nearby", "too_large"),
		c.value("guidepost_guides_cache_fallbacks_total", "nearby", "too_many_guides"))
	if fromParts < pages*8/10 {
		t.Errorf("only %d of %d warm pages read parts of dense tiles", fromParts, pages)
	}
}

// Viewports over dense tiles read the parts they meet, with the database's
// answer, edges on part and tile boundaries included.
func TestDenseTilesViewportFromPartsEqualsTheDatabase(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	c := startCache(t, store, nil, denseConfig)
	rng := rand.New(rand.NewPCG(9, 10))
	fromParts := 0
	for i := range 300 {
		q := denseQuery(rng)
		w := math.Exp(math.Log(0.0005) + rng.Float64()*math.Log(60)) // 0.0005° – 0.03°
		h := w * (0.5 + rng.Float64())
		b := guides.BBox{MinLng: q.Lng - w/2, MinLat: q.Lat - h/2, MaxLng: q.Lng + w/2, MaxLat: q.Lat + h/2}
		if i%10 == 0 { // edges on part boundaries (1/800°) and on the twins
			b = guides.BBox{MinLng: 127.03125, MinLat: 37.50125, MaxLng: twins.lng, MaxLat: twins.lat}
		}
		bq := guides.BBoxQuery{BBox: b, Limit: 1 + rng.IntN(500), Tag: q.Tag}
		want, wantTrunc, err := store.InBBox(ctx, bq)
		if err != nil {
			t.Fatal(err)
		}
		for pass := range 2 {
			before := c.value("guidepost_guides_cache_dense_answers_total", "bbox")
			got, gotTrunc, err := c.InBBox(ctx, bq)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameItems(got, want); diff != "" || gotTrunc != wantTrunc {
				t.Fatalf("viewport %d %+v: truncated %v vs %v\n%s", i, bq, gotTrunc, wantTrunc, diff)
			}
			if pass == 1 && c.value("guidepost_guides_cache_dense_answers_total", "bbox") > before {
				fromParts++
			}
			settle(t, c)
		}
	}
	if fromParts < 300*8/10 {
		t.Errorf("only %d of 300 warm viewports read parts of dense tiles", fromParts)
	}
}

// A write into a dense tile is seen by the next read from its parts, on
// the writing process at once and on another within NOTIFY's delay, while
// readers keep reading.
func TestWritesIntoDenseTilesAreSeen(t *testing.T) {
	ctx := context.Background()
	db, _ := seeded(t)
	storeA, storeB := gsql.NewGuides(db), gsql.NewGuides(db)
	a := startCache(t, storeA, nil, denseConfig)
	b := startCache(t, storeB, nil, denseConfig)
	svc := guides.New(guides.Deps{Store: a, Clock: clock{}}, guides.Config{CursorKey: []byte("k")})
	author := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: author, DisplayName: "w", Guest: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	lat, lng := dense.lat+0.0012, dense.lng-0.0031
	near := guides.NearbyQuery{Lat: lat, Lng: lng, RadiusM: 200, Limit: 20}
	view := guides.BBoxQuery{BBox: guides.BBox{MinLat: lat - 0.0007, MinLng: lng - 0.0007, MaxLat: lat + 0.0007, MaxLng: lng + 0.0007}, Limit: 500}
	// Identical misses under way at once share one database read, which
	// may have started before the write (a client's own reads after a
	// write carry its read mark and share only with each other): the
	// readers below ask with other limits, over the same parts.
	read := func(c started, limit int) ([]guides.Item, []guides.Item) {
		n, v := near, view
		n.Limit, v.Limit = n.Limit+limit, v.Limit+limit
		items, err := c.Nearby(ctx, n)
		if err != nil {
			t.Error(err)
		}
		inBox, _, err := c.InBBox(ctx, v)
		if err != nil {
			t.Error(err)
		}
		return items, inBox
	}
	has := func(c started, id string) (bool, bool) {
		items, inBox := read(c, 0)
		return slices.ContainsFunc(items, func(it guides.Item) bool { return it.ID == id }),
			slices.ContainsFunc(inBox, func(it guides.Item) bool { return it.ID == id })
	}
	for _, c := range []started{a, b} {
		warmUp(t, c, func() { has(c, "") })
	}
	// Readers on both processes keep the parts busy meanwhile.
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for i, c := range []started{a, b, a, b} {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					read(c, 1+i)
				}
			}
		})
	}
	stopReaders := sync.OnceFunc(func() { close(stop); readers.Wait() })
	defer stopReaders()
	denseBefore := a.value("guidepost_guides_cache_dense_answers_total", "nearby")
	for i := range 5 {
		glat := lat + float64(i)*0.00001
		g, err := svc.Create(ctx, author, guides.Input{Title: "fresh", Lat: &glat, Lng: &lng})
		if err != nil {
			t.Fatal(err)
		}
		if n, v := has(a, g.ID); !n || !v {
			t.Fatalf("write %d: the writing process does not see its own write at once (nearby %v, viewport %v)", i, n, v)
		}
		waitUntil(t, time.Second, "create seen by the other process", func() bool { n, v := has(b, g.ID); return n && v })
		if err := svc.Delete(ctx, g.ID, author); err != nil {
			t.Fatal(err)
		}
		if n, v := has(a, g.ID); n || v {
			t.Fatalf("write %d: the writing process still lists a deleted guide", i)
		}
		waitUntil(t, time.Second, "delete seen by the other process", func() bool { n, v := has(b, g.ID); return !n && !v })
	}
	// The reads after the writes came from parts again, not the database.
	stopReaders()
	warmUp(t, a, func() { has(a, "") })
	before := a.value("guidepost_guides_cache_dense_answers_total", "nearby")
	has(a, "")
	if a.value("guidepost_guides_cache_dense_answers_total", "nearby") != before+1 || before == denseBefore {
		t.Errorf("reads around the writes were not answered from parts (%.0f then %.0f)", denseBefore, before)
	}
}
