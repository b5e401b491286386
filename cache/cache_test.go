package cache_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// Places the test data clusters in: the seed's cities, a dense block of
// ~1,500 guides per tile, and one spot holding 40 guides at the very same
// coordinates (ties broken by id).
var (
	dense = struct{ lat, lng float64 }{37.505, 127.035}
	twins = struct{ lat, lng float64 }{37.5123, 127.0456}
)

func seed(t testing.TB, db *gsql.DB) {
	t.Helper()
	ctx := context.Background()
	if err := seedgen.Guides(ctx, db, 6000, 42, nil); err != nil {
		t.Fatal(err)
	}
	author := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: author, DisplayName: "dense", Guest: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	_, err := db.Pool.Exec(ctx, `INSERT INTO guides (id, author_id, title, location, tags, created_at, updated_at)
		SELECT gen_random_uuid(), $1, 'dense ' || i,
			ST_SetSRID(ST_MakePoint($3 - 0.01 + random() * 0.02, $2 - 0.01 + random() * 0.02), 4326)::geography,
			CASE WHEN i % 3 = 0 THEN ARRAY['food'] ELSE ARRAY['cafe', 'night'] END, now(), now()
		FROM generate_series(1, 6000) i`, author, dense.lat, dense.lng)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Pool.Exec(ctx, `INSERT INTO guides (id, author_id, title, location, tags, created_at, updated_at)
		SELECT gen_random_uuid(), $1, 'twin ' || i, ST_SetSRID(ST_MakePoint($3, $2), 4326)::geography, ARRAY['food'], now(), now()
		FROM generate_series(1, 40) i`, author, twins.lat, twins.lng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `ANALYZE guides`); err != nil {
		t.Fatal(err)
	}
}

type started struct {
	*cache.Guides
	reg *prometheus.Registry
}

// seeded is a database with seed's guides, and its store.
func seeded(t testing.TB) (*gsql.DB, *gsql.Guides) {
	t.Helper()
	db := testkit.DB(t)
	seed(t, db)
	return db, gsql.NewGuides(db)
}

// startCache runs a cache until the test ends and waits until it answers.
func startCache(t testing.TB, store *gsql.Guides, rdb redis.UniversalClient, opt cache.Config) started {
	return startCacheOn(t, store, store, rdb, opt)
}

// startCacheOn is startCache loading tiles from src.
func startCacheOn(t testing.TB, store *gsql.Guides, src guides.TileSource, rdb redis.UniversalClient, opt cache.Config) started {
	t.Helper()
	if opt.FillAllowance == 0 {
		// These tests are of what loads do, not of what they may spend
		// (TestLoadsSpendWhatAnswersSaved): lift the budget, which would
		// hold every load after the first until answers repay it.
		opt.FillAllowance = 1
	}
	reg := prometheus.NewRegistry()
	c := cache.New(cache.Deps{Store: store, Source: src, Redis: rdb, Registerer: reg}, opt)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	waitUntil(t, 10*time.Second, "cache synced", c.Ready)
	return started{c, reg}
}

// settle waits until c has loaded every tile it was asked for.
func settle(t testing.TB, c started) {
	t.Helper()
	waitUntil(t, 10*time.Second, "background tile loads", func() bool { return c.FillsPending() == 0 })
}

// warmUp runs search until it queues no more tile loads and defers none
// (a tile loads on its second miss).
func warmUp(t testing.TB, c started, search func()) {
	t.Helper()
	asked := func() float64 {
		return c.value("guidepost_guides_cache_fills_total") + c.value("guidepost_guides_cache_fills_deferred_total")
	}
	for range 10 {
		before := asked()
		search()
		if asked() == before && c.FillsPending() == 0 {
			return
		}
		settle(t, c)
	}
}

func waitUntil(t testing.TB, limit time.Duration, what string, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !ok() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not after %s", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// sameItems compares two answers field by field; distances to the bit.
func sameItems(a, b []guides.Item) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d items vs %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || math.Float64bits(x.DistanceM) != math.Float64bits(y.DistanceM) || x.Title != y.Title ||
			x.Lat != y.Lat || x.Lng != y.Lng || x.LikeCount != y.LikeCount || !slices.Equal(x.Tags, y.Tags) ||
			!x.CreatedAt.Equal(y.CreatedAt) || !reflect.DeepEqual(x.Cover, y.Cover) || x.Author != y.Author || x.PhotoCount != y.PhotoCount {
			return fmt.Sprintf("#%d: %+v\n vs %+v", i, x, y)
		}
	}
	return ""
}

type query struct {
	guides.NearbyQuery
	pages int
}

func randomQuery(rng *rand.Rand) guides.NearbyQuery {
	var lat, lng float64
	switch u := rng.IntN(10); {
	case u < 3: // Seoul
		lat, lng = 37.5665+rng.NormFloat64()*0.08, 126.978+rng.NormFloat64()*0.1
	case u < 5: // the dense block and its twins
		lat, lng = dense.lat+rng.NormFloat64()*0.01, dense.lng+rng.NormFloat64()*0.01
		if u == 4 && rng.IntN(2) == 0 {
			lat, lng = twins.lat, twins.lng
		}
	case u < 6:
		lat, lng = 35.1796+rng.NormFloat64()*0.05, 129.0756+rng.NormFloat64()*0.06
	case u < 7:
		lat, lng = 33.4996+rng.NormFloat64()*0.05, 126.5312+rng.NormFloat64()*0.15
	default: // anywhere in South Korea, mostly sparse
		lat, lng = 34+rng.Float64()*4.3, 126.1+rng.Float64()*3.5
	}
	q := guides.NearbyQuery{Lat: lat, Lng: lng,
		RadiusM: math.Exp(rng.Float64() * math.Log(50_000)), // 1 m – 50 km, log-uniform
		Limit:   1 + rng.IntN(100)}
	if rng.IntN(5) == 0 {
		q.Tag = []string{"food", "cafe", "temple", "beach"}[rng.IntN(4)]
	}
	return q
}

// The cached answer is the database's answer: a few thousand random points,
// radii, limits and tags, following cursors, in a dense block, on exact
// ties, in sparse areas, with dense tiles whole and cut into parts.
func TestCachedNearbyEqualsTheDatabase(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	rdb := testkit.RedisClient(t, testkit.RedisURL(t, testkit.RedisDBCache))
	warm := startCache(t, store, rdb, cache.Config{})
	small := startCache(t, store, nil, cache.Config{MaxTileGuides: 1000}) // dense tiles cached as parts
	n := 2000
	if testing.Short() {
		n = 300
	}
	// Four workers, each with its own sequence of random queries, twice:
	// the first pass compares the answers of caches that are still filling
	// (misses go to the database), and warms them; the second compares
	// and counts how many pages the warm cache answered from its tiles.
	var pages atomic.Int64
	var wg sync.WaitGroup
	pass := func(warming bool) {
		for w := range 4 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(1, uint64(w)))
				for i := range n / 4 {
					q := randomQuery(rng)
					for page := 0; page < 3; page++ {
						want, err := store.Nearby(ctx, q)
						if err != nil {
							t.Error(err)
							return
						}
						caches := []started{warm}
						if i%3 == 0 {
							caches = append(caches, small)
						}
						for _, c := range caches {
							if warming {
								warmUp(t, c, func() { c.Nearby(ctx, q) })
							}
							got, err := c.Nearby(ctx, q)
							if err != nil {
								t.Error(err)
								return
							}
							if diff := sameItems(got, want); diff != "" {
								t.Errorf("worker %d query %d page %d %+v:\n%s", w, i, page, q, diff)
								return
							}
						}
						pages.Add(1)
						if len(want) < q.Limit || len(want) == 0 {
							break
						}
						last := want[len(want)-1]
						q.After = &guides.Position{DistanceM: last.DistanceM, ID: last.ID}
						q.Limit = 1 + rng.IntN(100)
					}
				}
			})
		}
		wg.Wait()
	}
	pass(true)
	before := warm.value("guidepost_guides_cache_answers_total", "nearby", "cache")
	pages.Store(0)
	pass(false)
	answers := warm.value("guidepost_guides_cache_answers_total", "nearby", "cache") - before
	t.Logf("%d pages compared; warm cache answered %.0f from tiles", pages.Load(), answers)
	if answers < float64(pages.Load())*0.8 {
		t.Errorf("the cache answered only %.0f of %d pages itself", answers, pages.Load())
	}
	if n := small.value("guidepost_guides_cache_dense_answers_total", "nearby"); n == 0 {
		t.Error("no answer read parts of a dense tile with MaxTileGuides 1000")
	}
}

// value reads a counter by name and label values.
func (s started) value(name string, labels ...string) float64 {
	mfs, _ := s.reg.Gather()
	want := slices.Clone(labels)
	slices.Sort(want)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var vals []string
			for _, lp := range m.GetLabel() {
				vals = append(vals, lp.GetValue())
			}
			slices.Sort(vals)
			switch {
			case !slices.Equal(vals, want):
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			}
		}
	}
	return 0
}

func TestCachedViewportEqualsTheDatabase(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	c := startCache(t, store, nil, cache.Config{})
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		q := randomQuery(rng)
		w := math.Exp(math.Log(0.002) + rng.Float64()*math.Log(100)) // 0.002° – 0.2°
		h := w * (0.5 + rng.Float64())
		b := guides.BBox{MinLng: q.Lng - w/2, MinLat: q.Lat - h/2, MaxLng: q.Lng + w/2, MaxLat: q.Lat + h/2}
		if i%10 == 0 { // edges exactly on tile boundaries and on the twins
			b = guides.BBox{MinLng: 127.04, MinLat: 37.5, MaxLng: twins.lng, MaxLat: twins.lat}
		}
		bq := guides.BBoxQuery{BBox: b, Limit: 1 + rng.IntN(500), Tag: q.Tag}
		want, wantTrunc, err := store.InBBox(ctx, bq)
		if err != nil {
			t.Fatal(err)
		}
		// The first answer may come from the database while the tiles
		// load; the second, from the tiles.
		for range 2 {
			got, gotTrunc, err := c.InBBox(ctx, bq)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameItems(got, want); diff != "" || gotTrunc != wantTrunc {
				t.Fatalf("viewport %d %+v: truncated %v vs %v\n%s", i, bq, gotTrunc, wantTrunc, diff)
			}
			settle(t, c)
		}
	}
	if n := c.value("guidepost_guides_cache_answers_total", "bbox", "cache"); n < 300 {
		t.Errorf("only %.0f viewports answered from tiles", n)
	}
}

// A write on one process shows up in another process's cache within a
// second (here: within NOTIFY's few milliseconds), and a new process reads
// the first one's tiles from Redis. Likes reach lists within MaxAge.
func TestWritesAreSeenByAnotherProcessAtOnce(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	seed(t, db)
	url := testkit.RedisURL(t, testkit.RedisDBCache)
	storeA, storeB := gsql.NewGuides(db), gsql.NewGuides(db)
	opt := cache.Config{LikePoll: 100 * time.Millisecond}
	a := startCache(t, storeA, testkit.RedisClient(t, url), opt)
	b := startCache(t, storeB, testkit.RedisClient(t, url), opt)
	svc := guides.New(guides.Deps{Store: a, Clock: clock{}}, guides.Config{CursorKey: []byte("k")})
	author := uuid.Must(uuid.NewV7()).String()
	gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: author, DisplayName: "w", Guest: true, CreatedAt: time.Now()})
	here := guides.NearbyQuery{Lat: 37.55, Lng: 126.99, RadiusM: 300, Limit: 100}
	view := guides.BBoxQuery{BBox: guides.BBox{MinLng: 126.98, MinLat: 37.54, MaxLng: 127.0, MaxLat: 37.56}, Limit: 500}
	has := func(c started, id string) (bool, bool) {
		items, _ := c.Nearby(ctx, here)
		inBox, _, _ := c.InBBox(ctx, view)
		return slices.ContainsFunc(items, func(it guides.Item) bool { return it.ID == id }),
			slices.ContainsFunc(inBox, func(it guides.Item) bool { return it.ID == id })
	}
	has(a, "")
	has(b, "") // both warm
	lat, lng := 37.5501, 126.9901
	g, err := svc.Create(ctx, author, guides.Input{Title: "fresh", Lat: &lat, Lng: &lng})
	if err != nil {
		t.Fatal(err)
	}
	if n, v := has(a, g.ID); !n || !v {
		t.Fatal("the writing process does not see its own write at once")
	}
	took := waitUntil(t, time.Second, "create seen by the other process", func() bool { n, v := has(b, g.ID); return n && v })
	t.Logf("create seen by the other process after %s", took)

	// Like counts are not versioned: lists catch up within LikePoll.
	liker := uuid.Must(uuid.NewV7()).String()
	gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: liker, DisplayName: "l", Guest: true, CreatedAt: time.Now()})
	if _, err := svc.Like(ctx, g.ID, guides.Liker{UserID: liker}); err != nil {
		t.Fatal(err)
	}
	took = waitUntil(t, opt.LikePoll+time.Second, "like count in the other process's list", func() bool {
		items, _ := b.Nearby(ctx, here)
		for _, it := range items {
			if it.ID == g.ID {
				return it.LikeCount == 1
			}
		}
		return false
	})
	t.Logf("like count in lists after %s (LikePoll %s)", took, opt.LikePoll)

	far := 37.57
	if _, err := svc.Update(ctx, g.ID, author, guides.Patch{Lat: &far}); err != nil {
		t.Fatal(err)
	}
	took = waitUntil(t, time.Second, "move seen by the other process", func() bool {
		n, v := has(b, g.ID)
		moved, _ := b.Nearby(ctx, guides.NearbyQuery{Lat: far, Lng: lng, RadiusM: 10, Limit: 5})
		return !n && !v && len(moved) > 0 && moved[0].ID == g.ID
	})
	t.Logf("move seen after %s", took)
	if err := svc.Delete(ctx, g.ID, author); err != nil {
		t.Fatal(err)
	}
	took = waitUntil(t, time.Second, "delete seen by the other process", func() bool {
		moved, _ := b.Nearby(ctx, guides.NearbyQuery{Lat: far, Lng: lng, RadiusM: 10, Limit: 5})
		return len(moved) == 0 || moved[0].ID != g.ID
	})
	t.Logf("delete seen after %s", took)

	// A cold process reads from Redis the tiles a warm one has just built.
	warm := startCache(t, gsql.NewGuides(db), testkit.RedisClient(t, url), cache.Config{})
	busan := guides.NearbyQuery{Lat: 35.18, Lng: 129.07, RadiusM: 2000, Limit: 50}
	warmUp(t, warm, func() { warm.Nearby(ctx, busan) })
	time.Sleep(50 * time.Millisecond) // the copy to Redis is asynchronous
	cold := startCache(t, gsql.NewGuides(db), testkit.RedisClient(t, url), cache.Config{})
	want, _ := storeA.Nearby(ctx, busan)
	// The first answer comes from PostgreSQL while the tiles load (from
	// Redis) in the background; then from those tiles.
	for range 2 {
		got, _ := cold.Nearby(ctx, busan)
		if diff := sameItems(got, want); diff != "" {
			t.Fatal(diff)
		}
		settle(t, cold)
	}
	if hits := cold.value("guidepost_guides_cache_lookups_total", "l2", "hit"); hits == 0 {
		t.Error("the cold process read nothing from Redis")
	}
}

type clock struct{}

func (clock) Now() time.Time { return time.Now() }

// When the version feed drops (its connection is killed), the cache stops
// answering until it has read every version again, so a write made
// meanwhile is not missed.
func TestLostFeedFallsBackAndMissesNothing(t *testing.T) {
	ctx := context.Background()
	db, store := seeded(t)
	c := startCache(t, store, nil, cache.Config{})
	here := guides.NearbyQuery{Lat: 37.55, Lng: 126.99, RadiusM: 300, Limit: 100}
	c.Nearby(ctx, here) // warm
	var killed int
	err := db.Pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1`, gsql.TileListenerName).Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("killed %d listeners: %v", killed, err)
	}
	waitUntil(t, 5*time.Second, "cache notices the lost feed", func() bool { return !c.Ready() })
	// A write no NOTIFY will tell this cache about: ours would, so write
	// through another store.
	other := gsql.NewGuides(db)
	author := uuid.Must(uuid.NewV7()).String()
	gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: author, DisplayName: "w", Guest: true, CreatedAt: time.Now()})
	id := uuid.Must(uuid.NewV7()).String()
	if err := other.CreateGuide(ctx, guides.NewGuide{ID: id, AuthorID: author, Title: "x", Lat: 37.5501, Lng: 126.9901, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	items, _ := c.Nearby(ctx, here) // answered by the database meanwhile
	if !slices.ContainsFunc(items, func(it guides.Item) bool { return it.ID == id }) {
		t.Error("write missed while the feed was down")
	}
	waitUntil(t, 10*time.Second, "cache syncs again", c.Ready)
	items, _ = c.Nearby(ctx, here)
	want, _ := store.Nearby(ctx, here)
	if diff := sameItems(items, want); diff != "" || !slices.ContainsFunc(items, func(it guides.Item) bool { return it.ID == id }) {
		t.Fatalf("after resync: %s", diff)
	}
}

// Redis stopped, or hung: nearby still answers, correctly, and a hung
// Redis costs a request at most the Redis timeout.
func TestRedisDownSlowsNeverFails(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	srv := testkit.StartRedis(t)
	warm := startCache(t, store, testkit.RedisClient(t, srv.URL), cache.Config{})
	rng := rand.New(rand.NewPCG(9, 9))
	check := func(c started, n int) time.Duration {
		var worst time.Duration
		for range n {
			q := randomQuery(rng)
			start := time.Now()
			got, err := c.Nearby(ctx, q)
			worst = max(worst, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := store.Nearby(ctx, q)
			if diff := sameItems(got, want); diff != "" {
				t.Fatal(diff)
			}
		}
		return worst
	}
	check(warm, 50)
	srv.Stop()
	cold := startCache(t, store, testkit.RedisClient(t, srv.URL), cache.Config{})
	worst := check(cold, 100)
	check(warm, 50)
	t.Logf("Redis stopped: slowest of 100 answers %s", worst)
	// Misses answer from PostgreSQL and fill tiles in the background, so
	// the fill's Redis error may be counted a moment after the answers.
	deadline := time.Now().Add(10 * time.Second)
	for cold.value("guidepost_guides_cache_redis_errors_total") == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if cold.value("guidepost_guides_cache_redis_errors_total") == 0 {
		t.Error("no Redis error was counted")
	}

	// A Redis that accepts connections and never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	accepted, release := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() {
				select {
				case <-time.After(5 * time.Second):
				case <-release:
				}
				conn.Close()
			})
		}
	}()
	defer func() { ln.Close(); <-accepted; close(release); conns.Wait() }()
	hung := startCache(t, store, testkit.RedisClient(t, "redis://"+ln.Addr().String()+"/0"), cache.Config{RedisTimeout: 200 * time.Millisecond})
	worst = check(hung, 30)
	t.Logf("Redis hung: slowest of 30 answers %s", worst)
	if worst > 1500*time.Millisecond {
		t.Errorf("a hung Redis held a request %s", worst)
	}
}

// countingSource counts tile loads.
type countingSource struct {
	*gsql.Guides
	loads sync.Map // tile -> *atomic.Int64
}

func (s *countingSource) LoadTiles(ctx context.Context, tiles []int64, max int) ([]guides.Tile, error) {
	for _, t := range tiles {
		n, _ := s.loads.LoadOrStore(t, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
	time.Sleep(20 * time.Millisecond) // a slow database widens the race
	return s.Guides.LoadTiles(ctx, tiles, max)
}

// A hundred requests for the same cold spot at once load each tile once.
func TestOneLoadPerTileUnderAStampede(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	src := &countingSource{Guides: store}
	c := startCacheOn(t, store, src, nil, cache.Config{})
	q := guides.NearbyQuery{Lat: dense.lat, Lng: dense.lng, RadiusM: 2000, Limit: 20}
	want, _ := store.Nearby(ctx, q)
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			got, err := c.Nearby(ctx, q)
			if err != nil {
				t.Error(err)
			} else if diff := sameItems(got, want); diff != "" {
				t.Error(diff)
			}
		})
	}
	wg.Wait()
	// The misses' tiles load in the background, once the database is
	// quiet: wait for them before counting.
	waitUntil(t, 10*time.Second, "background tile loads", func() bool { return c.FillsPending() == 0 })
	tiles := 0
	src.loads.Range(func(k, v any) bool {
		tiles++
		if n := v.(*atomic.Int64).Load(); n != 1 {
			t.Errorf("tile %v loaded %d times", k, n)
		}
		return true
	})
	if tiles == 0 {
		t.Fatal("nothing loaded")
	}
}

// A search that misses tiles is answered by the database, exactly, without
// waiting for them; they load in the background and the same search is
// then answered from them.
func TestColdMissGoesToTheDatabaseAndFillsInTheBackground(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	c := startCache(t, store, nil, cache.Config{})
	q := guides.NearbyQuery{Lat: dense.lat, Lng: dense.lng, RadiusM: 1500, Limit: 20}
	want, _ := store.Nearby(ctx, q)
	got, err := c.Nearby(ctx, q)
	if diff := sameItems(got, want); err != nil || diff != "" {
		t.Fatalf("cold answer: %v %s", err, diff)
	}
	if n := c.value("guidepost_guides_cache_fallbacks_total", "nearby", "cold"); n != 1 {
		t.Fatalf("cold fallbacks %v, want 1", n)
	}
	warmUp(t, c, func() { c.Nearby(ctx, q) })
	before := c.value("guidepost_guides_cache_answers_total", "nearby", "cache")
	got, err = c.Nearby(ctx, q)
	if diff := sameItems(got, want); err != nil || diff != "" {
		t.Fatalf("warm answer: %v %s", err, diff)
	}
	if c.value("guidepost_guides_cache_answers_total", "nearby", "cache") != before+1 {
		t.Fatal("the filled tiles did not answer")
	}
}

// recordingSource records each tile load: when it ran and each tile's
// guide count; delay stands for a busy database.
type recordingSource struct {
	*gsql.Guides
	delay time.Duration
	mu    sync.Mutex
	spans [][2]time.Time
	loads [][]int
}

func (s *recordingSource) LoadTiles(ctx context.Context, tiles []int64, max int) ([]guides.Tile, error) {
	start := time.Now()
	time.Sleep(s.delay)
	out, err := s.Guides.LoadTiles(ctx, tiles, max)
	counts := make([]int, 0, len(out))
	for _, t := range out {
		counts = append(counts, t.Count)
	}
	s.mu.Lock()
	s.spans = append(s.spans, [2]time.Time{start, time.Now()})
	s.loads = append(s.loads, counts)
	s.mu.Unlock()
	return out, err
}

// A loader rests between loads, so that loading takes FillDuty of its time
// and leaves the database to the searches of a cold start.
func TestLoaderRestsBetweenLoads(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	src := &recordingSource{Guides: store, delay: 30 * time.Millisecond}
	// Batches of a tile each: the four searches' tiles make several loads.
	c := startCacheOn(t, store, src, nil, cache.Config{FillDuty: 0.25, FillOnMiss: 1, FillBatchGuides: 1})
	for _, p := range []struct{ lat, lng float64 }{dense, twins, {37.5665, 126.978}, {35.1796, 129.0756}} {
		if _, err := c.Nearby(ctx, guides.NearbyQuery{Lat: p.lat, Lng: p.lng, RadiusM: 1500, Limit: 20}); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, 10*time.Second, "background tile loads", func() bool { return c.FillsPending() == 0 })
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.spans) < 3 {
		t.Fatalf("%d loads, want several queued behind one loader", len(src.spans))
	}
	for i := 1; i < len(src.spans); i++ {
		took := src.spans[i-1][1].Sub(src.spans[i-1][0])
		if rest := src.spans[i][0].Sub(src.spans[i-1][1]); rest < 3*took*9/10 {
			t.Errorf("load %d started %s after load %d, which took %s: want a rest of about 3×", i, rest, i-1, took)
		}
	}
}

// A cold miss over many guides is loaded in batches of at most
// FillBatchGuides (a tile holding more is a batch alone), so that no one
// load holds the database long while searches wait.
func TestBackgroundLoadsAreSmallBatches(t *testing.T) {
	ctx := context.Background()
	_, store := seeded(t)
	src := &recordingSource{Guides: store}
	const batch = 2000
	c := startCacheOn(t, store, src, nil, cache.Config{FillDuty: 1, FillBatchGuides: batch})
	// The 6,000 dense guides lie in a few tiles of about 1,500.
	q := guides.BBoxQuery{BBox: guides.BBox{MinLat: dense.lat - 0.012, MinLng: dense.lng - 0.012,
		MaxLat: dense.lat + 0.012, MaxLng: dense.lng + 0.012}, Limit: 50}
	want, _, _ := store.InBBox(ctx, q)
	warmUp(t, c, func() { c.InBBox(ctx, q) })
	got, _, err := c.InBBox(ctx, q)
	if diff := sameItems(got, want); err != nil || diff != "" {
		t.Fatalf("warm answer: %v %s", err, diff)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	guidesRead := 0
	for i, counts := range src.loads {
		n := 0
		for _, k := range counts {
			n += k
		}
		guidesRead += n
		if n > batch && len(counts) > 1 {
			t.Errorf("load %d read %d guides in %d tiles, want at most %d unless one tile", i, n, len(counts), batch)
		}
	}
	if guidesRead < 6000 || len(src.loads) < 3 {
		t.Fatalf("%d guides in %d loads: the test's search must need several batches", guidesRead, len(src.loads))
	}
}
