package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// apiRedis is the package's Redis DB, emptied, for caches to share.
func apiRedis(t *testing.T) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: testkit.RedisAddr(), DB: testkit.RedisDBAPI})
	testkit.RedisURL(t, testkit.RedisDBAPI)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// threeGuidesAtCityHall is an API process with its own cache over a
// database holding three guides around Seoul City Hall.
func threeGuidesAtCityHall(t *testing.T, likePoll time.Duration) (*gsql.DB, *harness) {
	db := testkit.DB(t)
	placeGuides(t, db, [2]float64{37.5665, 126.978}, [2]float64{37.5667, 126.9785}, [2]float64{37.57, 126.98})
	return db, cachedMapServer(t, db, apiRedis(t), likePoll)
}

// cachedMapServer is an API process: its own cache over db, sharing rdb.
func cachedMapServer(t *testing.T, db *gsql.DB, rdb redis.UniversalClient, likePoll time.Duration) *harness {
	t.Helper()
	store := gsql.NewGuides(db)
	c := cache.New(cache.Deps{Store: store, Source: store, Redis: rdb, Registerer: prometheus.NewRegistry()}, cache.Config{LikePoll: likePoll})
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	h := mapServer(t, db, c)
	// Versions are named once the cache follows tile versions and has read
	// the like counts.
	deadline := time.Now().Add(10 * time.Second)
	for h.conditionalGet("/v1/tiles/0/0/0.mvt", "").etag == "" {
		if time.Now().After(deadline) {
			t.Fatal("no ETag after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return h
}

type condReply struct {
	status                          int
	etag, cacheControl, contentType string
	bodyLen                         int
}

// conditionalGet sends GET path with If-None-Match: ifNoneMatch (if any).
func (h *harness) conditionalGet(path, ifNoneMatch string) condReply {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.srv.URL+path, nil)
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return condReply{status: resp.StatusCode, etag: resp.Header.Get("ETag"), cacheControl: resp.Header.Get("Cache-Control"),
		contentType: resp.Header.Get("Content-Type"), bodyLen: len(raw)}
}

// tilePath is the URL of the tile of zoom z holding a point.
func tilePath(lat, lng float64, z int) string {
	t := maptile.At(orb.Point{lng, lat}, maptile.Zoom(z))
	return fmt.Sprintf("/v1/tiles/%d/%d/%d.mvt", z, t.X, t.Y)
}

// The map reads whose ETags the tests follow: a zoom-14 tile and the
// lists and clusters of the area around Seoul City Hall.
var mapReads = []string{
	tilePath(37.5665, 126.978, 14),
	tilePath(37.5665, 126.978, 10) + "?tag=food",
	"/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000",
	"/v1/guides?bbox=126.95,37.55,127.0,37.58",
	"/v1/guides/clusters?bbox=126.9,37.5,127.05,37.6&zoom=12.5",
}

// A repeated map read with If-None-Match is 304 with the same ETag, and
// PostgreSQL is not asked for anything: no connection leaves the pool.
func TestNotModifiedTouchesNoDatabase(t *testing.T) {
	// Like counts are read at start, then not for an hour: the test counts
	// every connection taken from the pool.
	db, h := threeGuidesAtCityHall(t, time.Hour)
	etags := map[string]string{}
	for _, path := range mapReads {
		r := h.conditionalGet(path, "")
		if r.status != 200 || r.etag == "" || r.cacheControl != "public, no-cache" {
			t.Fatalf("GET %s: %+v", path, r)
		}
		etags[path] = r.etag
	}
	before := settled(t, db.Pool)
	for range 20 {
		for _, path := range mapReads {
			r := h.conditionalGet(path, `W/"other", `+etags[path])
			if r.status != 304 || r.etag != etags[path] || r.bodyLen != 0 || r.cacheControl != "public, no-cache" {
				t.Fatalf("GET %s with If-None-Match: %+v", path, r)
			}
		}
	}
	if n := db.Pool.Stat().AcquireCount() - before; n != 0 {
		t.Fatalf("%d conditional requests took %d connections from the pool", 20*len(mapReads), n)
	}
	// The count does see queries: a viewport never asked before is
	// clustered by PostgreSQL.
	h.conditionalGet("/v1/guides/clusters?bbox=126.9,37.5,127.06,37.6&zoom=12.5", "")
	if db.Pool.Stat().AcquireCount() == before {
		t.Fatal("a clusters answer took no connection: the count proves nothing")
	}
	if r := h.conditionalGet(mapReads[0], `"stale"`); r.status != 200 || r.etag != etags[mapReads[0]] || r.contentType != "application/vnd.mapbox-vector-tile" {
		t.Fatalf("an old ETag: %+v", r)
	}
}

// writingStore is the guide store with a write landing in every area
// while each map answer is read (when moving): every area's stamp moves
// during the read.
type writingStore struct {
	guides.Store
	stamp, moving, reads atomic.Uint64
}

func (s *writingStore) AreaStamp(r0, r1, c0, c1 int64) (uint64, bool) { return s.stamp.Load(), true }

func (s *writingStore) read() {
	s.reads.Add(1)
	s.stamp.Add(s.moving.Load())
}

func (s *writingStore) Nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	s.read()
	return s.Store.Nearby(ctx, q)
}

func (s *writingStore) InBBox(ctx context.Context, q guides.BBoxQuery) ([]guides.Item, bool, error) {
	s.read()
	return s.Store.InBBox(ctx, q)
}

func (s *writingStore) Clusters(ctx context.Context, q guides.ClusterQuery) ([]guides.Cluster, error) {
	s.read()
	return s.Store.Clusters(ctx, q)
}

func (s *writingStore) VectorTile(ctx context.Context, q guides.VectorTileQuery) ([]byte, error) {
	s.read()
	return s.Store.VectorTile(ctx, q)
}

// An answer built while a write moved its version is sent without an
// ETag, and not kept for the version it was asked under: the version is
// named again once the answer is built. Asked again under that version,
// with no write meanwhile, the answer is read again and carries it.
func TestNoETagOnAnAnswerBuiltAcrossAWrite(t *testing.T) {
	db := testkit.DB(t)
	placeGuides(t, db, [2]float64{37.5665, 126.978}, [2]float64{37.5667, 126.9785}, [2]float64{37.57, 126.98})
	store := &writingStore{Store: gsql.NewGuides(db)}
	h := mapServer(t, db, store)
	for _, path := range mapReads {
		asked := store.stamp.Load()
		store.moving.Store(1)
		if r := h.conditionalGet(path, ""); r.status != 200 || r.etag != "" || r.bodyLen == 0 {
			t.Fatalf("GET %s while a write lands: %+v", path, r)
		}
		store.moving.Store(0)
		store.stamp.Store(asked)
		reads := store.reads.Load()
		if r := h.conditionalGet(path, ""); r.status != 200 || r.etag == "" || r.bodyLen == 0 {
			t.Fatalf("GET %s with no write meanwhile: %+v", path, r)
		}
		if store.reads.Load() == reads {
			t.Fatalf("GET %s was sent the answer built across a write", path)
		}
	}
}

// Two API processes sharing PostgreSQL and Redis name the same ETag for
// the same tile; a guide created through one, then moved through the
// other, changes the ETags of the tiles it left and entered on both within
// a second, and so does a like once the like poll has read it.
func TestWritesChangeETagsOnEveryProcess(t *testing.T) {
	db, rdb := testkit.DB(t), apiRedis(t)
	placeGuides(t, db, [2]float64{37.5665, 126.978}, [2]float64{37.60, 127.05})
	a := cachedMapServer(t, db, rdb, 200*time.Millisecond)
	b := cachedMapServer(t, db, rdb, 200*time.Millisecond)
	here, there := tilePath(37.5665, 126.978, 16), tilePath(37.6003, 127.0755, 16)
	tagOf := func(h *harness, path string) string {
		r := h.conditionalGet(path, "")
		if r.etag == "" {
			t.Fatalf("GET %s: no ETag: %+v", path, r)
		}
		return r.etag
	}
	// changesWithin waits until both processes answer path with another ETag.
	changesWithin := func(what, path, old string, limit time.Duration) {
		t.Helper()
		start := time.Now()
		for _, h := range []*harness{a, b} {
			for h.conditionalGet(path, old).status == 304 {
				if time.Since(start) > limit {
					t.Fatalf("%s: %s still has ETag %s after %s", what, path, old, limit)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		t.Logf("%s: %s changed on both processes within %s", what, path, time.Since(start).Round(time.Millisecond))
	}
	e1, e2 := tagOf(a, here), tagOf(a, there)
	if tagOf(b, here) != e1 || tagOf(b, there) != e2 || e1 == e2 {
		t.Fatal("two processes on one database name different ETags for a tile")
	}

	_, token := signupGuest(t, a)
	id := a.doRaw("POST", "/v1/guides", token, "application/json",
		strings.NewReader(`{"title":"new","lat":37.56655,"lng":126.97805}`), 201)["id"].(string)
	changesWithin("a new guide", here, e1, time.Second)
	e1 = tagOf(a, here)
	if tagOf(b, here) != e1 {
		t.Fatal("after a write the processes disagree")
	}

	b.doRaw("PATCH", "/v1/guides/"+id, token, "application/json", strings.NewReader(`{"lat":37.6003,"lng":127.0755}`), 200)
	changesWithin("a moved guide (the tile it left)", here, e1, time.Second)
	changesWithin("a moved guide (the tile it entered)", there, e2, time.Second)
	e2 = tagOf(b, there)

	b.doRaw("PUT", "/v1/guides/"+id+"/like", token, "", nil, 200)
	changesWithin("a like", there, e2, 2*time.Second)
}

func signupGuest(t *testing.T, h *harness) (id, token string) {
	t.Helper()
	r := h.do("POST", "/v1/auth/guest", "", `{}`)
	if r.status != 201 {
		t.Fatalf("guest: %d %v", r.status, r.body)
	}
	return r.body["user"].(map[string]any)["id"].(string), r.body["access_token"].(string)
}

// A list page with a next_cursor asked twice is the same bytes under the
// same ETag (the cursor's issue time is rounded), and a signed-in caller's
// list, which shows their own likes, carries none.
func TestListETagsNameTheirBytes(t *testing.T) {
	_, h := threeGuidesAtCityHall(t, time.Hour)
	for _, path := range []string{"/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000&limit=1", "/v1/guides?bbox=126.95,37.55,127.0,37.58&limit=1"} {
		// Both requests in one 5-minute window of cursor issue times.
		if left := time.Until(time.Now().Truncate(5 * time.Minute).Add(5 * time.Minute)); left < 3*time.Second {
			time.Sleep(left + 100*time.Millisecond)
		}
		s1, h1, b1 := h.send("GET", path, "", "", nil)
		time.Sleep(1100 * time.Millisecond)
		s2, h2, b2 := h.send("GET", path, "", "", nil)
		if s1 != 200 || h1.Get("ETag") == "" || h1.Get("ETag") != h2.Get("ETag") || string(b1) != string(b2) || s2 != 200 {
			t.Fatalf("GET %s twice: %d %q %s / %d %q %s", path, s1, h1.Get("ETag"), b1, s2, h2.Get("ETag"), b2)
		}
		if !strings.Contains(string(b1), `"next_cursor":"`) {
			t.Fatalf("GET %s: no next_cursor to check: %s", path, b1)
		}
	}
	_, token := signupGuest(t, h)
	_, header, _ := h.send("GET", "/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000", token, "", nil)
	if header.Get("ETag") != "" || !strings.Contains(header.Get("Vary"), "Authorization") {
		t.Fatalf("a signed-in caller's list: ETag %q, Vary %q", header.Get("ETag"), header.Get("Vary"))
	}
}

// An anonymous map read may be kept by any cache; one asked with a bearer
// token only by the caller's own (its likes and counts are theirs), and
// GET /v1/me by none: Vary: Authorization alone would trust every shared
// cache to key on the header.
func TestSignedInAnswersArePrivate(t *testing.T) {
	_, h := threeGuidesAtCityHall(t, time.Hour)
	_, token := signupGuest(t, h)
	id := h.doRaw("POST", "/v1/guides", token, "application/json",
		strings.NewReader(`{"title":"mine","lat":37.5666,"lng":126.9781}`), 201)["id"].(string)
	for _, path := range append(slices.Clone(mapReads), "/v1/guides/"+id) {
		anon, _, _ := h.send("GET", path, "", "", nil)
		_, anonHeader, _ := h.send("GET", path, "", "", nil)
		status, header, body := h.send("GET", path, token, "", nil)
		if anon != 200 || status != 200 {
			t.Fatalf("GET %s: %d anonymous, %d signed in: %s", path, anon, status, body)
		}
		if cc := header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
			t.Errorf("GET %s signed in: Cache-Control %q", path, cc)
		}
		if cc := anonHeader.Get("Cache-Control"); strings.Contains(cc, "private") || path != "/v1/guides/"+id && cc != "public, no-cache" {
			t.Errorf("GET %s anonymous: Cache-Control %q", path, cc)
		}
	}
	for _, path := range []string{"/v1/me", "/v1/me/guides"} {
		if status, header, body := h.send("GET", path, token, "", nil); status != 200 || header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d, Cache-Control %q: %s", path, status, header.Get("Cache-Control"), body)
		}
	}
}

// settled waits until the background tile loads the first reads started
// have given their connections back and no new one is taken for 300 ms (a
// fixed sleep was too short on a loaded machine), and returns the count.
func settled(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		n := pool.Stat().AcquireCount()
		time.Sleep(300 * time.Millisecond)
		st := pool.Stat()
		if st.AcquireCount() == n && st.AcquiredConns() == 0 {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool never went quiet: %d acquired, %d taken in 300 ms", st.AcquiredConns(), st.AcquireCount()-n)
		}
	}
}
