package cache_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	gsql "github.com/guidepost/guidepost/sql"
)

// A nearby miss loads the tiles its answer reaches, not every tile of its
// radius: a page of 20 in the dense block reaches a few dozen metres, and
// a cache that loaded the 5 km around it would push out of memory what
// answers use. The same search is then answered from those tiles, though
// it reads a batch that reaches further (the tiles it lacks are ruled out
// by the ones it holds).
func TestNearbyMissLoadsWhatItsAnswerReaches(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	src := &recordingSource{Guides: store}
	c := startCacheOn(t, store, src, nil, cache.Config{FillDuty: 1, FillOnMiss: 1})
	for _, q := range []guides.NearbyQuery{
		{Lat: dense.lat, Lng: dense.lng, RadiusM: 5000, Limit: 20},
		{Lat: 35.1796, Lng: 129.0756, RadiusM: 5000, Limit: 20}, // sparse: a ring's batch reaches past the page
	} {
		want, err := store.Nearby(ctx, q)
		if err != nil || len(want) < q.Limit {
			t.Fatalf("%+v: %d guides, %v: the test needs a full page", q, len(want), err)
		}
		src.mu.Lock()
		src.loads = nil
		src.mu.Unlock()
		if got, err := c.Nearby(ctx, q); err != nil || sameItems(got, want) != "" {
			t.Fatalf("cold answer: %v %s", err, sameItems(got, want))
		}
		settle(t, c)
		src.mu.Lock()
		tiles := 0
		for _, l := range src.loads {
			tiles += len(l)
		}
		src.mu.Unlock()
		reach := want[len(want)-1].DistanceM
		if tiles == 0 || tiles > reachTiles(q, reach) {
			t.Errorf("%+v: the miss loaded %d tiles, want at most the %d its page reaches (%.0f m)", q, tiles, reachTiles(q, reach), reach)
		}
		before := c.value("guidepost_guides_cache_answers_total", "nearby", "cache")
		got, err := c.Nearby(ctx, q)
		if diff := sameItems(got, want); err != nil || diff != "" {
			t.Fatalf("warm answer: %v %s", err, diff)
		}
		if c.value("guidepost_guides_cache_answers_total", "nearby", "cache") != before+1 {
			t.Errorf("%+v: the loaded tiles did not answer", q)
		}
	}
}

// With FillOnMiss 2 a tile loads on its second miss: a search asked once
// costs the database its answer and nothing more.
func TestATileLoadsOnItsSecondMiss(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	src := &recordingSource{Guides: store}
	c := startCacheOn(t, store, src, nil, cache.Config{FillDuty: 1, FillOnMiss: 2})
	q := guides.NearbyQuery{Lat: dense.lat, Lng: dense.lng, RadiusM: 1000, Limit: 20}
	loads := func() int {
		src.mu.Lock()
		defer src.mu.Unlock()
		return len(src.loads)
	}
	for miss := 1; miss <= 2; miss++ {
		if _, err := c.Nearby(ctx, q); err != nil {
			t.Fatal(err)
		}
		settle(t, c)
		if n := loads(); miss == 1 && n != 0 || miss == 2 && n == 0 {
			t.Fatalf("after miss %d: %d loads", miss, n)
		}
	}
	if c.value("guidepost_guides_cache_fills_deferred_total") == 0 {
		t.Error("the first miss's tiles were not counted as deferred")
	}
	before := c.value("guidepost_guides_cache_answers_total", "nearby", "cache")
	if _, err := c.Nearby(ctx, q); err != nil {
		t.Fatal(err)
	}
	if c.value("guidepost_guides_cache_answers_total", "nearby", "cache") != before+1 {
		t.Error("the tiles loaded on the second miss did not answer")
	}
}

// By default a tile loads on its first miss while L1 has room, and on its
// second once L1 evicts for room: a full L1 admits a new entry only over a
// more frequent one, so a tile missed once would mostly load for nothing.
func TestAFullL1LoadsOnTheSecondMiss(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	busan := guides.NearbyQuery{Lat: 35.1796, Lng: 129.0756, RadiusM: 3000, Limit: 20}
	missOnce := func(c started, src *recordingSource) (loads int) {
		t.Helper()
		src.mu.Lock()
		src.loads = nil
		src.mu.Unlock()
		if _, err := c.Nearby(ctx, busan); err != nil {
			t.Fatal(err)
		}
		settle(t, c)
		src.mu.Lock()
		defer src.mu.Unlock()
		return len(src.loads)
	}

	src := &recordingSource{Guides: store}
	roomy := startCacheOn(t, store, src, nil, cache.Config{FillDuty: 1})
	if n := missOnce(roomy, src); n == 0 || roomy.value("guidepost_guides_cache_l1_full") != 0 {
		t.Fatalf("with room: %d loads after the first miss (full: %v)", n, roomy.value("guidepost_guides_cache_l1_full"))
	}

	src = &recordingSource{Guides: store}
	small := startCacheOn(t, store, src, nil, cache.Config{FillDuty: 1, L1Bytes: 1 << 20})
	for _, p := range []struct{ lat, lng float64 }{dense, {37.5665, 126.978}, twins, {33.4996, 126.5312}} {
		q := guides.NearbyQuery{Lat: p.lat, Lng: p.lng, RadiusM: 3000, Limit: 50}
		warmUp(t, small, func() { small.Nearby(ctx, q) })
	}
	if small.value("guidepost_guides_cache_l1_full") != 1 {
		t.Fatalf("1 MiB of L1 did not fill (evictions %v)", small.value("guidepost_guides_cache_l1_evictions_total", "no"))
	}
	deferred := small.value("guidepost_guides_cache_fills_deferred_total")
	if n := missOnce(small, src); n != 0 {
		t.Fatalf("full: the first miss loaded %d batches", n)
	}
	if small.value("guidepost_guides_cache_fills_deferred_total") == deferred {
		t.Error("full: the first miss's tiles were not counted as deferred")
	}
	if n := missOnce(small, src); n == 0 {
		t.Error("full: the second miss loaded nothing")
	}
}

// An entry L1 drops for room is counted, with whether it answered first.
func TestEvictionsAreCountedByUse(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	c := startCache(t, store, nil, cache.Config{FillDuty: 1, FillOnMiss: 1, L1Bytes: 1 << 20})
	for _, p := range []struct{ lat, lng float64 }{dense, {37.5665, 126.978}, {35.1796, 129.0756}, twins, {33.4996, 126.5312}} {
		q := guides.NearbyQuery{Lat: p.lat, Lng: p.lng, RadiusM: 3000, Limit: 50}
		warmUp(t, c, func() { c.Nearby(ctx, q) })
	}
	waitUntil(t, 10*time.Second, "evictions counted", func() bool {
		return c.value("guidepost_guides_cache_l1_evictions_total", "yes")+c.value("guidepost_guides_cache_l1_evictions_total", "no") > 0
	})
}

// reachTiles is how many tiles a disc of radius m around q's point can
// meet at most: the tiles of its bounding square.
func reachTiles(q guides.NearbyQuery, m float64) int {
	dLat := m / 111_000
	dLng := dLat / math.Cos(q.Lat*math.Pi/180)
	rows := guides.TileRow(q.Lat+dLat) - guides.TileRow(q.Lat-dLat) + 1
	cols := guides.TileCol(q.Lng+dLng) - guides.TileCol(q.Lng-dLng) + 1
	return int(rows * cols)
}

// slowSearches answers nearby searches after a delay, standing for a busy
// database: what an answer from memory saves.
type slowSearches struct {
	*gsql.Guides
	delay time.Duration
}

func (s *slowSearches) Nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	time.Sleep(s.delay)
	return s.Guides.Nearby(ctx, q)
}

// Background loads spend no more database time than answers from memory
// saved, beyond FillAllowance: after a restart a load costs the database
// at once and pays back only as searches hit what it loaded.
func TestLoadsSpendWhatAnswersSaved(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	src := &recordingSource{Guides: store, delay: 100 * time.Millisecond}
	reg := prometheus.NewRegistry()
	c := cache.New(cache.Deps{Store: &slowSearches{Guides: store, delay: 25 * time.Millisecond}, Source: src, Registerer: reg},
		cache.Config{FillDuty: 1, FillAllowance: 0.01, FillOnMiss: 1})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	waitUntil(t, 10*time.Second, "cache synced", c.Ready)
	loads := func() int {
		src.mu.Lock()
		defer src.mu.Unlock()
		return len(src.spans)
	}

	busan := guides.NearbyQuery{Lat: 35.1796, Lng: 129.0756, RadiusM: 5000, Limit: 20}
	if _, err := c.Nearby(ctx, busan); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, "the first load", func() bool { return c.FillsPending() == 0 })
	if n := loads(); n != 1 {
		t.Fatalf("%d loads for the first miss, want one batch", n)
	}
	for _, p := range []struct{ lat, lng float64 }{dense, twins, {37.5665, 126.978}} {
		if _, err := c.Nearby(ctx, guides.NearbyQuery{Lat: p.lat, Lng: p.lng, RadiusM: 1500, Limit: 20}); err != nil {
			t.Fatal(err)
		}
	}
	if c.FillsPending() == 0 {
		t.Fatal("the misses queued no tiles: the test needs some")
	}
	time.Sleep(time.Second) // the allowance repays a 100 ms load in 10 s
	if n := loads(); n != 1 {
		t.Fatalf("%d loads with no answer from memory yet, want the first only", n)
	}

	hits := func() float64 {
		return started{c, reg}.value("guidepost_guides_cache_answers_total", "nearby", "cache")
	}
	for range 5 { // each saves a miss's 25 ms: together more than the load took
		if _, err := c.Nearby(ctx, busan); err != nil {
			t.Fatal(err)
		}
	}
	if hits() != 5 {
		t.Fatalf("%v of 5 searches answered from memory", hits())
	}
	waitUntil(t, 2*time.Second, "a load paid for by answers", func() bool { return loads() > 1 })
}
