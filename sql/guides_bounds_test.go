package sql_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// stack inserts n guides on exactly one point.
func stack(t *testing.T, db *gsql.DB, author string, n int, lat, lng float64) {
	t.Helper()
	_, err := db.Pool.Exec(context.Background(), `INSERT INTO guides (id, author_id, title, body, location, tags, like_count, created_at, updated_at)
		SELECT gen_random_uuid(), $1, 'stacked', '', ST_SetSRID(ST_MakePoint($3, $2), 4326)::geography, '{food}', 0, now(), now()
		FROM generate_series(1, $4)`, author, lat, lng, n)
	if err != nil {
		t.Fatal(err)
	}
}

// oneConnStore is a store on a pool of one connection (see indexReads),
// and a guide author.
func oneConnStore(t *testing.T) (*gsql.DB, *gsql.Guides, string) {
	t.Helper()
	db, err := gsql.Open(context.Background(), testkit.DatabaseURL(t)+"&pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db, gsql.NewGuides(db), guideUser(t, db)
}

// indexReads is how many index entries a guides index has handed out so
// far, as PostgreSQL counts them. The pool has one connection, whose
// counts are flushed before they are read.
func indexReads(t *testing.T, db *gsql.DB, index string) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	db.Pool.Exec(ctx, `SELECT 1`) // the flush happens as this backend goes idle
	var n int64
	if err := db.Pool.QueryRow(ctx, `SELECT pg_stat_clear_snapshot(), idx_tup_read FROM pg_stat_user_indexes
		WHERE indexrelname = $1`, index).Scan(new(any), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A spot holds at most guides.MaxGuidesPerSpot guides: the next one there
// is refused naming lat and lng, by create and by a move, while one a few
// metres away is fine. A nearby page beside a full spot then reads a
// bounded number of index entries (the KNN scan reads a stack whole).
func TestOneSpotHoldsBoundedGuides(t *testing.T) {
	ctx := context.Background()
	db, store, author := oneConnStore(t)
	stack(t, db, author, guides.MaxGuidesPerSpot, 37.5, 127.0)
	g := guides.NewGuide{ID: uuid.Must(uuid.NewV7()).String(), AuthorID: author, Title: "one more", Lat: 37.5, Lng: 127.000001,
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	err := store.CreateGuide(ctx, g)
	if guidepost.ErrorCode(err) != guidepost.EUNPROCESSABLE || len(guidepost.ErrorFields(err)) != 2 {
		t.Fatalf("guide %d on one spot: %v", guides.MaxGuidesPerSpot+1, err)
	}
	g.Lat = 37.50005 // about 5.5 m north
	if err := store.CreateGuide(ctx, g); err != nil {
		t.Fatal(err)
	}
	err = store.UpdateGuide(ctx, g.ID, func(d *guides.Draft) error { d.Lat = 37.5; return nil })
	if guidepost.ErrorCode(err) != guidepost.EUNPROCESSABLE {
		t.Fatalf("moving a guide onto a full spot: %v", err)
	}
	if err := store.UpdateGuide(ctx, g.ID, func(d *guides.Draft) error { d.Title = "renamed"; return nil }); err != nil {
		t.Fatalf("an edit that does not move: %v", err)
	}

	q := guides.NearbyQuery{Lat: 37.5001, Lng: 127.0, RadiusM: 1000, Limit: 21}
	before := indexReads(t, db, "guides_location_idx")
	items, err := store.Nearby(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	read := indexReads(t, db, "guides_location_idx") - before
	if len(items) != q.Limit {
		t.Fatalf("%d items, want %d", len(items), q.Limit)
	}
	if read > 8*guides.MaxGuidesPerSpot {
		t.Fatalf("one page read %d index entries beside a spot of %d", read, guides.MaxGuidesPerSpot)
	}
	t.Logf("a page beside a full spot of %d guides read %d index entries", guides.MaxGuidesPerSpot, read)
}

// Above zoom 13 clustering groups the viewport's guides themselves, so a
// viewport holding more than guides.MaxClusterScan is grouped on the
// zoom-13 grid instead (exact per-tile counts, what zoom 13 answers), not
// refused; a tag does not lift the bound (see
// TestTaggedFineClustersCountEveryGuide), and a small viewport is grouped
// finely.
func TestFineClustersOverHugeScansUseTileSums(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author := guideUser(t, db)
	stack(t, db, author, guides.MaxClusterScan/2+1, 37.5, 127.0)
	stack(t, db, author, guides.MaxClusterScan/2+1, 37.6, 127.1)
	// Two guides tagged "night" in one tile, in different zoom-14 cells.
	if _, err := db.Pool.Exec(ctx, `UPDATE guides SET tags = '{night}', location = ST_SetSRID(ST_MakePoint(v.lng, 37.503), 4326)::geography
		FROM (SELECT id, row_number() OVER (ORDER BY id) AS i FROM guides LIMIT 2) s, (VALUES (1, 127.001), (2, 127.008)) v(i, lng)
		WHERE guides.id = s.id AND v.i = s.i`); err != nil {
		t.Fatal(err)
	}
	wide := guides.BBox{MinLng: 126.9, MinLat: 37.4, MaxLng: 127.2, MaxLat: 37.7}
	z13, err := store.Clusters(ctx, guides.ClusterQuery{BBox: wide, Zoom: 13, WithTop: true})
	if err != nil || len(z13) != 2 || z13[0].Count+z13[1].Count != guides.MaxClusterScan+2 {
		t.Fatalf("zoom 13: %+v %v", z13, err)
	}
	for _, zoom := range []int{14, 16} {
		fine, err := store.Clusters(ctx, guides.ClusterQuery{BBox: wide, Zoom: zoom, WithTop: true})
		if err != nil || !reflect.DeepEqual(fine, z13) {
			t.Fatalf("zoom %d over %d guides: %+v %v, want zoom 13's %+v", zoom, guides.MaxClusterScan+2, fine, err, z13)
		}
	}
	night, err := store.Clusters(ctx, guides.ClusterQuery{BBox: wide, Zoom: 14, Tag: "night"})
	if err != nil || len(night) != 1 || night[0].Count != 2 {
		t.Fatalf("zoom 14 over 2 guides tagged night among %d: %+v %v", guides.MaxClusterScan+2, night, err)
	}
	small := guides.BBox{MinLng: 126.99, MinLat: 37.49, MaxLng: 127.01, MaxLat: 37.51}
	if cl, err := store.Clusters(ctx, guides.ClusterQuery{BBox: small, Zoom: 16}); err != nil || len(cl) != 3 {
		t.Fatalf("a small viewport at zoom 16: %+v %v", cl, err)
	}
}

// A fine clustering with a tag reads every guide of its envelope (the tag
// filters them), so all of them count towards the bound: a tag carried by
// two guides among more than the bound is answered from the tag's tile
// sums, as zoom 13 answers it, and the same viewport within the bound
// groups the two finely.
func TestTaggedFineClustersCountEveryGuide(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	store.SetFineScanBound(100)
	author := guideUser(t, db)
	stack(t, db, author, 101, 37.505, 127.005)
	// Two guides tagged "night" in that tile, in different zoom-14 cells.
	if _, err := db.Pool.Exec(ctx, `UPDATE guides SET tags = '{night}', location = ST_SetSRID(ST_MakePoint(v.lng, 37.503), 4326)::geography
		FROM (SELECT id, row_number() OVER (ORDER BY id) AS i FROM guides LIMIT 2) s, (VALUES (1, 127.001), (2, 127.008)) v(i, lng)
		WHERE guides.id = s.id AND v.i = s.i`); err != nil {
		t.Fatal(err)
	}
	tile := guides.BBox{MinLng: 127.0, MinLat: 37.5, MaxLng: 127.0099, MaxLat: 37.5099}
	q := guides.ClusterQuery{BBox: tile, Zoom: 14, Tag: "night", WithTop: true}
	z13 := q
	z13.Zoom = 13
	want, err := store.Clusters(ctx, z13)
	if err != nil || len(want) != 1 || want[0].Count != 2 {
		t.Fatalf("zoom 13: %+v %v", want, err)
	}
	got, err := store.Clusters(ctx, q)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("zoom 14, 2 guides tagged night among 101 over a bound of 100: %+v %v, want zoom 13's %+v", got, err, want)
	}
	store.SetFineScanBound(101)
	if got, err := store.Clusters(ctx, q); err != nil || len(got) != 2 || got[0].Count != 1 || got[1].Count != 1 {
		t.Fatalf("zoom 14, 2 guides tagged night among 101 within the bound: %+v %v", got, err)
	}
}
