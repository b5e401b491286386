package sql_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

func guideUser(t testing.TB, db *gsql.DB) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	err := gsql.NewUsers(db).CreateUser(context.Background(), auth.User{ID: id, DisplayName: "u", Guest: true, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func guideMedia(t testing.TB, db *gsql.DB, owner, status string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	_, err := db.Pool.Exec(context.Background(), `INSERT INTO media (id, owner_id, status, content_type, bytes, width, height, sha256, thumbhash, created_at, updated_at)
		VALUES ($1, $2, $3::text, 'image/jpeg', 1000, 800, 600, $4, CASE WHEN $3::text = 'ready' THEN 'aGFzaA==' END, now(), now())`, id, owner, status, id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func guideRow(t testing.TB, store *gsql.Guides, author string, lat, lng float64, media ...string) string {
	t.Helper()
	return writeGuide(t, store, guides.NewGuide{AuthorID: author, Title: "g", Lat: lat, Lng: lng, Tags: []string{"food"}, MediaIDs: media})
}

// writeGuide stores g with a new id, created now.
func writeGuide(t testing.TB, store *gsql.Guides, g guides.NewGuide) string {
	t.Helper()
	g.ID, g.CreatedAt = uuid.Must(uuid.NewV7()).String(), time.Now().UTC().Truncate(time.Microsecond)
	if err := store.CreateGuide(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	return g.ID
}

func countRows(t testing.TB, db *gsql.DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGuideReadsAuthorMediaInOrderAndLikes(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author, viewer := guideUser(t, db), guideUser(t, db)
	m1, m2 := guideMedia(t, db, author, "ready"), guideMedia(t, db, author, "pending")
	id := guideRow(t, store, author, 37.5, 127.0, m2, m1)
	if _, err := store.Like(ctx, id, guides.Liker{UserID: viewer}, time.Now()); err != nil {
		t.Fatal(err)
	}
	g, err := store.Guide(ctx, id, viewer)
	if err != nil {
		t.Fatal(err)
	}
	if g.Author.ID != author || len(g.Media) != 2 || g.Media[0].ID != m2 || g.Media[1].ID != m1 ||
		g.Media[1].ThumbHash == "" || g.LikeCount != 1 || !g.LikedByMe || g.Lat != 37.5 || g.Lng != 127.0 {
		t.Fatalf("guide: %+v", g)
	}
	if g, _ := store.Guide(ctx, id, ""); g.LikedByMe {
		t.Error("anonymous reader sees liked_by_me")
	}
	for _, bad := range []string{"nope", uuid.NewString()} {
		if _, err := store.Guide(ctx, bad, ""); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
			t.Errorf("guide %q: %v", bad, err)
		}
	}
}

// Another user's photo, an unknown id and a failed photo are each named,
// and nothing is written.
func TestCreateChecksEveryPhoto(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author, other := guideUser(t, db), guideUser(t, db)
	mine := guideMedia(t, db, author, "ready")
	theirs := guideMedia(t, db, other, "ready")
	failed := guideMedia(t, db, author, "failed")
	err := store.CreateGuide(ctx, guides.NewGuide{ID: uuid.NewString(), AuthorID: author, Title: "t", Lat: 1, Lng: 2,
		MediaIDs: []string{mine, theirs, uuid.NewString(), failed}, CreatedAt: time.Now()})
	if guidepost.ErrorCode(err) != guidepost.EINVALID {
		t.Fatalf("want EINVALID, got %v", err)
	}
	got := map[string]bool{}
	for _, f := range guidepost.ErrorFields(err) {
		got[f.Field] = true
	}
	if got["media_ids[0]"] || !got["media_ids[1]"] || !got["media_ids[2]"] || !got["media_ids[3]"] {
		t.Fatalf("fields: %+v", guidepost.ErrorFields(err))
	}
	if n := countRows(t, db, `SELECT count(*) FROM guides`) + countRows(t, db, `SELECT count(*) FROM guide_media`) +
		countRows(t, db, `SELECT count(*) FROM guide_tiles`); n != 0 {
		t.Fatalf("%d rows written", n)
	}
}

// The service's rules through the real store: only the author changes or
// deletes, a refused change leaves the row as it was, and a photo of
// someone else cannot be attached by a patch either.
func TestOnlyTheAuthorChangesAGuide(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	svc := guides.New(guides.Deps{Store: store, Clock: guidepost.SystemClock{}}, guides.Config{CursorKey: []byte("k")})
	author, other := guideUser(t, db), guideUser(t, db)
	lat, lng := 37.5, 127.0
	g, err := svc.Create(ctx, author, guides.Input{Title: "mine", Lat: &lat, Lng: &lng})
	if err != nil {
		t.Fatal(err)
	}
	title := "stolen"
	if _, err := svc.Update(ctx, g.ID, other, guides.Patch{Title: &title}); guidepost.ErrorCode(err) != guidepost.EFORBIDDEN {
		t.Fatalf("update by another: %v", err)
	}
	if err := svc.Delete(ctx, g.ID, other); guidepost.ErrorCode(err) != guidepost.EFORBIDDEN {
		t.Fatalf("delete by another: %v", err)
	}
	theirs := []string{guideMedia(t, db, other, "ready")}
	if _, err := svc.Update(ctx, g.ID, author, guides.Patch{Title: &title, MediaIDs: &theirs}); guidepost.ErrorCode(err) != guidepost.EINVALID {
		t.Fatalf("attach another's photo: %v", err)
	}
	if now, _ := svc.Get(ctx, g.ID, ""); now.Title != "mine" || len(now.Media) != 0 {
		t.Fatalf("a refused update wrote: %+v", now)
	}
	moved := 35.1
	if now, err := svc.Update(ctx, g.ID, author, guides.Patch{Lat: &moved}); err != nil || now.Lat != moved || now.Lng != lng {
		t.Fatalf("move: %+v %v", now, err)
	}
	if err := svc.Delete(ctx, g.ID, author); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Get(ctx, g.ID, ""); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("after delete: %v", err)
	}
	if err := svc.Delete(ctx, g.ID, author); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("second delete: %v", err)
	}
}

type tileRecorder struct {
	mu      sync.Mutex
	synced  int
	changed map[int64]int64
}

func (r *tileRecorder) Synced(map[int64]guides.TileState) { r.mu.Lock(); r.synced++; r.mu.Unlock() }
func (r *tileRecorder) Lost(error)                        {}
func (r *tileRecorder) Changed(tile int64, st guides.TileState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changed[tile] = max(r.changed[tile], st.Version)
}
func (r *tileRecorder) get(tile int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed[tile]
}

// Every write bumps the version of each tile it touches, in the writing
// transaction, and every listener hears of it after the commit.
func TestWritesBumpTileVersionsAndNotify(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testkit.DB(t)
	store, listener := gsql.NewGuides(db), gsql.NewGuides(db)
	rec := &tileRecorder{changed: map[int64]int64{}}
	watched := make(chan struct{})
	go func() { listener.WatchTiles(ctx, rec); close(watched) }()
	defer func() { cancel(); <-watched }()
	local := &tileRecorder{changed: map[int64]int64{}}
	store.OnTileWrite(local.Changed)
	wait := func(r *tileRecorder, tile, version int64) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for r.get(tile) < version {
			if time.Now().After(deadline) {
				t.Fatalf("tile %d: heard version %d, want %d", tile, r.get(tile), version)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rec.mu.Lock()
		s := rec.synced
		rec.mu.Unlock()
		if s > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("listener never synced")
		}
	}
	author := guideUser(t, db)
	a, b := guides.TileOf(37.5, 127.0), guides.TileOf(35.1, 129.0)
	id := guideRow(t, store, author, 37.5, 127.0)
	wait(local, a, 1) // the writer's own hook, before NOTIFY
	wait(rec, a, 1)
	svc := guides.New(guides.Deps{Store: store, Clock: guidepost.SystemClock{}}, guides.Config{CursorKey: []byte("k")})
	lat, lng := 35.1, 129.0
	if _, err := svc.Update(ctx, id, author, guides.Patch{Lat: &lat, Lng: &lng}); err != nil {
		t.Fatal(err)
	}
	wait(rec, a, 2)
	wait(rec, b, 1)
	if n := countRows(t, db, `SELECT guides FROM guide_tiles WHERE tile = $1`, a); n != 0 {
		t.Errorf("old tile still counts %d", n)
	}
	title := "renamed"
	if _, err := svc.Update(ctx, id, author, guides.Patch{Title: &title}); err != nil {
		t.Fatal(err)
	}
	wait(rec, b, 2) // an edit in place changes what the tile shows
	// A photo that becomes ready changes the guide's cover in lists.
	photo := guideMedia(t, db, author, "pending")
	photos := []string{photo}
	if _, err := svc.Update(ctx, id, author, guides.Patch{MediaIDs: &photos}); err != nil {
		t.Fatal(err)
	}
	wait(rec, b, 3)
	if _, err := db.Pool.Exec(ctx, `UPDATE media SET status = 'ready', thumbhash = 'aGFzaA==' WHERE id = $1`, photo); err != nil {
		t.Fatal(err)
	}
	wait(rec, b, 4)
	if err := svc.Delete(ctx, id, author); err != nil {
		t.Fatal(err)
	}
	wait(rec, b, 5)
	if n := countRows(t, db, `SELECT sum(guides) FROM guide_tiles`); n != 0 {
		t.Errorf("tiles still count %d guides", n)
	}
	// A bulk load notifies its tiles in notifications of at most 7000
	// bytes: listeners hear every version and read none again.
	rec.mu.Lock()
	before := rec.synced
	rec.mu.Unlock()
	if err := seedgen.Guides(ctx, db, 5000, 1, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Pool.Query(ctx, `SELECT tile, version FROM guide_tiles WHERE guides > 0`)
	if err != nil {
		t.Fatal(err)
	}
	seeded, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Tile, Version int64 }])
	if err != nil || len(seeded) < 500 {
		t.Fatalf("%d tiles seeded (want more than one notification holds), %v", len(seeded), err)
	}
	for _, st := range seeded {
		wait(rec, st.Tile, st.Version)
	}
	rec.mu.Lock()
	after := rec.synced
	rec.mu.Unlock()
	if after != before {
		t.Fatalf("a bulk load made the listener read every version (%d syncs, was %d)", after, before)
	}
	if n := countRows(t, db, `SELECT sum(guides) FROM guide_tiles`); n != 5000 {
		t.Errorf("tiles count %d guides after seeding 5000", n)
	}
}

// LoadTiles returns exactly the guides whose tile is the one asked, by the
// Go numbering, with the version of the same snapshot.
func TestLoadTilesMatchesGoTileNumbering(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author := guideUser(t, db)
	// Points on and next to tile edges, where float rounding would show.
	var lats = []float64{37.57, 37.569999999999, 37.5700000000001, 37.56, 37.58, 37.575}
	var lngs = []float64{126.98, 126.97999999999, 126.9800000000001, 126.99, 126.985}
	want := map[int64]int{}
	for _, lat := range lats {
		for _, lng := range lngs {
			guideRow(t, store, author, lat, lng)
			want[guides.TileOf(lat, lng)]++
		}
	}
	var ids []int64
	for tile := range want {
		ids = append(ids, tile)
	}
	ids = append(ids, guides.TileOf(10, 10)) // never written
	tiles, err := store.LoadTiles(ctx, ids, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(tiles) != len(ids) {
		t.Fatalf("%d tiles for %d ids", len(tiles), len(ids))
	}
	for _, tl := range tiles {
		if len(tl.Items) != want[tl.ID] || tl.Count != want[tl.ID] {
			t.Errorf("tile %d: %d items, count %d, want %d", tl.ID, len(tl.Items), tl.Count, want[tl.ID])
		}
		for i, it := range tl.Items {
			if guides.TileOf(it.Lat, it.Lng) != tl.ID {
				t.Errorf("guide at %v,%v is in tile %d, not %d", it.Lat, it.Lng, guides.TileOf(it.Lat, it.Lng), tl.ID)
			}
			if i > 0 && tl.Items[i-1].ID <= it.ID {
				t.Errorf("tile %d not newest first", tl.ID)
			}
		}
		if want[tl.ID] > 0 && tl.Version == 0 || want[tl.ID] == 0 && tl.Version != 0 {
			t.Errorf("tile %d version %d", tl.ID, tl.Version)
		}
	}
	small, _ := store.LoadTiles(ctx, ids[:1], 1)
	if want[ids[0]] > 1 && (!small[0].TooLarge || len(small[0].Items) != 0) {
		t.Errorf("a tile over the limit: %+v", small[0])
	}
	var _ guides.TileSource = store
}

// Clusters from per-tile sums equal a grouping of every guide done here,
// at tile zooms and finer ones.
func TestClustersCountEveryGuide(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	if err := seedgen.Guides(ctx, db, 4000, 3, nil); err != nil {
		t.Fatal(err)
	}
	all := guidePoints(t, db)
	for _, tc := range []struct {
		zoom int
		bbox guides.BBox
	}{
		{5, guides.BBox{MinLng: 120, MinLat: 30, MaxLng: 135, MaxLat: 40}},
		{9, guides.BBox{MinLng: 126.5, MinLat: 37.2, MaxLng: 127.5, MaxLat: 37.9}},
		{13, guides.BBox{MinLng: 126.9, MinLat: 37.5, MaxLng: 127.05, MaxLat: 37.6}},
		{16, guides.BBox{MinLng: 126.95, MinLat: 37.55, MaxLng: 127.0, MaxLat: 37.58}},
	} {
		got, err := store.Clusters(ctx, guides.ClusterQuery{BBox: tc.bbox, Zoom: tc.zoom})
		if err != nil {
			t.Fatal(err)
		}
		type cell struct{ r, c int64 }
		cellOf := func(lat, lng float64) cell {
			if tc.zoom <= guides.MaxTileClusterZoom {
				s := guides.ClusterShift(tc.zoom)
				return cell{guides.TileRow(lat) >> s, guides.TileCol(lng) >> s}
			}
			f := guides.ClusterCellsPerDegree(tc.zoom)
			return cell{int64(math.Floor(lat * f)), int64(math.Floor(lng * f))}
		}
		lo, hi := cellOf(tc.bbox.MinLat, tc.bbox.MinLng), cellOf(tc.bbox.MaxLat, tc.bbox.MaxLng)
		want := map[cell][]guidePoint{}
		for _, p := range all {
			c := cellOf(p.lat, p.lng)
			if c.r >= lo.r && c.r <= hi.r && c.c >= lo.c && c.c <= hi.c {
				want[c] = append(want[c], p)
			}
		}
		if len(got) != len(want) {
			t.Errorf("zoom %d: %d clusters, want %d", tc.zoom, len(got), len(want))
		}
		for _, cl := range got {
			ps := want[cellOf(cl.Lat, cl.Lng)]
			if int64(len(ps)) != cl.Count {
				t.Errorf("zoom %d: cluster at %v,%v counts %d, want %d", tc.zoom, cl.Lat, cl.Lng, cl.Count, len(ps))
				continue
			}
			if cl.Count == 1 && (cl.GuideID != ps[0].id || cl.Lat != ps[0].lat || cl.Lng != ps[0].lng) {
				t.Errorf("zoom %d: single cluster %+v, want %+v", tc.zoom, cl, ps[0])
			}
			if cl.Count > 1 && cl.GuideID != "" {
				t.Errorf("zoom %d: cluster of %d names a guide", tc.zoom, cl.Count)
			}
		}
	}
}

// A like storm on one guide at store level: every user taps twice at once;
// exactly one like each is recorded, then all unlike back to zero.
func TestLikeStormIsExactAtStoreLevel(t *testing.T) {
	db := testkit.DB(t)
	likeStormIsExact(t, db, gsql.NewGuides(db))
}

// likeStormIsExact is the storm above on store, one statement per like or
// group-committed.
func likeStormIsExact(t *testing.T, db *gsql.DB, store *gsql.Guides) {
	ctx := context.Background()
	author := guideUser(t, db)
	id := guideRow(t, store, author, 37.5, 127.0)
	users := make([]string, 200)
	for i := range users {
		users[i] = guideUser(t, db)
	}
	storm := func(like bool) {
		var wg sync.WaitGroup
		errs := make(chan error, 2*len(users))
		for _, u := range users {
			for range 2 {
				wg.Go(func() {
					var err error
					if like {
						_, err = store.Like(ctx, id, guides.Liker{UserID: u}, time.Now())
					} else {
						_, err = store.Unlike(ctx, id, guides.Liker{UserID: u}, time.Now())
					}
					if err != nil {
						errs <- err
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	storm(true)
	g, _ := store.Guide(ctx, id, "")
	if rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, id); rows != len(users) || g.LikeCount != int64(len(users)) {
		t.Fatalf("after likes: %d rows, like_count %d, want %d", rows, g.LikeCount, len(users))
	}
	if shards := countRows(t, db, `SELECT count(*) FROM guide_like_shards WHERE guide_id = $1`, id); shards < 2 {
		t.Errorf("likes landed on %d counter rows", shards)
	}
	storm(false)
	g, _ = store.Guide(ctx, id, "")
	if rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, id); rows != 0 || g.LikeCount != 0 {
		t.Fatalf("after unlikes: %d rows, like_count %d", rows, g.LikeCount)
	}
	if _, err := store.Like(ctx, uuid.NewString(), guides.Liker{UserID: users[0]}, time.Now()); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Errorf("like of a missing guide: %v", err)
	}
}

// The store's nearby answer against a brute force over every guide: same
// ids in the same order, distances within 0.5% of a haversine (and equal
// to guides.Distance), pages that walk every guide once.
func TestNearbyMatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	if err := seedgen.Guides(ctx, db, 3000, 11, nil); err != nil {
		t.Fatal(err)
	}
	all := guidePoints(t, db)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 150 {
		lat, lng := 37.5665+rng.NormFloat64()*0.1, 126.978+rng.NormFloat64()*0.1
		if i%3 == 0 {
			lat, lng = 34+rng.Float64()*4, 126+rng.Float64()*3
		}
		radius := math.Exp(math.Log(50) + rng.Float64()*math.Log(1000)) // 50 m – 50 km
		type hit struct {
			id string
			d  float64
		}
		var want []hit
		for _, p := range all {
			if d := testkit.Haversine(lat, lng, p.lat, p.lng); d <= radius {
				want = append(want, hit{p.id, d})
			}
		}
		sortHits := func(h []hit) {
			for i := 1; i < len(h); i++ {
				for j := i; j > 0 && (h[j].d < h[j-1].d || h[j].d == h[j-1].d && h[j].id < h[j-1].id); j-- {
					h[j], h[j-1] = h[j-1], h[j]
				}
			}
		}
		sortHits(want)
		// Walk pages of random sizes.
		var got []guides.Item
		var after *guides.Position
		for page := 0; ; page++ {
			limit := 1 + rng.IntN(60)
			items, err := store.Nearby(ctx, guides.NearbyQuery{Lat: lat, Lng: lng, RadiusM: radius, Limit: limit, After: after})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, items...)
			if len(items) < limit {
				break
			}
			last := items[len(items)-1]
			after = &guides.Position{DistanceM: last.DistanceM, ID: last.ID}
		}
		if len(got) != len(want) {
			t.Fatalf("query %d (%v,%v r=%.0f): %d guides, brute force %d", i, lat, lng, radius, len(got), len(want))
		}
		for k := range got {
			if got[k].ID != want[k].id {
				t.Fatalf("query %d: #%d is %s at %.6f, brute force %s at %.6f", i, k, got[k].ID, got[k].DistanceM, want[k].id, want[k].d)
			}
			if math.Abs(got[k].DistanceM-want[k].d) > 0.005*want[k].d+1e-6 {
				t.Fatalf("query %d: distance %f vs haversine %f", i, got[k].DistanceM, want[k].d)
			}
		}
	}
}

// haversine on PostGIS's sphere, written independently of guides.Point.

type guidePoint struct {
	id       string
	lat, lng float64
}

// guidePoints reads every guide's position straight from the table, for
// brute-force checks.
func guidePoints(t *testing.T, db *gsql.DB) []guidePoint {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT id::text, ST_Y(location::geometry), ST_X(location::geometry) FROM guides`)
	if err != nil {
		t.Fatal(err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (guidePoint, error) {
		var p guidePoint
		return p, r.Scan(&p.id, &p.lat, &p.lng)
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
