package sql_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// The store's viewport answer against a brute force over every guide:
// the same ids, newest first, pages that walk every shown guide inside
// once. The viewports range from a street to a region, so both forms of
// the query answer (the merge of cells and the single index); guides sit
// exactly on cell boundaries and on the rectangles' edges, where a cell
// left out or an edge test in the wrong arithmetic would lose one; some
// are hidden, which no map shows.
func TestViewportMatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	if err := seedgen.Guides(ctx, db, 6000, 13, nil); err != nil {
		t.Fatal(err)
	}
	author := guideUser(t, db)
	rng := rand.New(rand.NewPCG(8, 8))
	// Guides on the 0.02° cell lines through central Seoul and on the
	// edges of the rectangles below.
	var edge []gsql.GuideRow
	at := time.Now().Add(-time.Hour)
	for i := range 200 {
		lat := 37.54 + 0.02*float64(rng.IntN(4))
		lng := 126.94 + 0.02*float64(rng.IntN(4))
		switch i % 3 {
		case 1:
			lat += rng.Float64() * 0.02
		case 2:
			lng += rng.Float64() * 0.02
		}
		at = at.Add(time.Second)
		edge = append(edge, gsql.GuideRow{ID: uuid.Must(uuid.NewV7()).String(), Title: "edge", Lat: lat, Lng: lng, CreatedAt: at})
	}
	if _, err := gsql.InsertGuidesOnce(ctx, db, author, edge); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE guides SET hidden_at = now(), hidden_reason = 'test', hidden_cause = 'moderator'
		WHERE ('x' || substr(md5(id::text), 1, 4))::bit(16)::int % 40 = 0`); err != nil {
		t.Fatal(err)
	}
	all := shownGuidePoints(t, db)
	for i := range 120 {
		b := randomViewport(rng, i)
		var want []string
		for _, p := range all {
			if b.Contains(p.lat, p.lng) {
				want = append(want, p.id)
			}
		}
		slices.Sort(want)
		slices.Reverse(want)
		var got []string
		before := ""
		for page := 0; page < 1000; page++ {
			limit := 1 + rng.IntN(120)
			items, truncated, err := store.InBBox(ctx, guides.BBoxQuery{BBox: b, Limit: limit, Before: before})
			if err != nil {
				t.Fatal(err)
			}
			if len(items) > limit || truncated && len(items) < limit {
				t.Fatalf("viewport %d %+v: %d items for limit %d, truncated %v", i, b, len(items), limit, truncated)
			}
			for _, it := range items {
				got = append(got, it.ID)
			}
			if !truncated {
				break
			}
			before = items[len(items)-1].ID
		}
		if !slices.Equal(got, want) {
			t.Fatalf("viewport %d %+v: %d guides, brute force %d; first difference at %d", i, b, len(got), len(want), firstDiff(got, want))
		}
	}
}

// randomViewport is a rectangle 0.002°–0.4° wide around central Seoul or
// anywhere in the seeded area; every fourth has its edges on cell lines.
func randomViewport(rng *rand.Rand, i int) guides.BBox {
	lat, lng := 37.5665+rng.NormFloat64()*0.05, 126.978+rng.NormFloat64()*0.06
	if i%5 == 4 {
		lat, lng = 34.5+rng.Float64()*3.5, 126.5+rng.Float64()*2.5
	}
	w := 0.002 * math.Pow(200, rng.Float64())
	h := w * (0.5 + rng.Float64()*1.5)
	b := guides.BBox{MinLng: lng - w/2, MinLat: lat - h/2, MaxLng: lng + w/2, MaxLat: lat + h/2}
	if i%4 == 0 {
		snap := func(v float64) float64 { return float64(int(v*50+0.5)) / 50 }
		b = guides.BBox{MinLng: snap(b.MinLng), MinLat: snap(b.MinLat), MaxLng: snap(b.MaxLng) + 0.02, MaxLat: snap(b.MaxLat) + 0.02}
	}
	return b
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// shownGuidePoints is every guide a map may show (not hidden).
func shownGuidePoints(t *testing.T, db *gsql.DB) []guidePoint {
	t.Helper()
	out := guidePoints(t, db)
	hidden := map[string]bool{}
	rows, err := db.Pool.Query(context.Background(), `SELECT id::text FROM guides WHERE hidden_at IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		hidden[id] = true
	}
	if len(hidden) == 0 {
		t.Fatal("no guide is hidden: the test would not see a hidden one shown")
	}
	return slices.DeleteFunc(out, func(p guidePoint) bool { return hidden[p.id] })
}

// scatter puts n guides per 0.02° cell of b, uniformly inside it.
func scatter(t *testing.T, db *gsql.DB, author string, b guides.BBox, n int) {
	t.Helper()
	cells := int(math.Round((b.MaxLat - b.MinLat) * 50 * (b.MaxLng - b.MinLng) * 50))
	_, err := db.Pool.Exec(context.Background(), `INSERT INTO guides (id, author_id, title, body, location, tags, like_count, created_at, updated_at)
		SELECT gen_random_uuid(), $1, 'scattered', '', ST_SetSRID(ST_MakePoint($2::float8 + random() * ($4::float8 - $2), $3::float8 + random() * ($5::float8 - $3)), 4326)::geography,
			'{}', 0, now(), now()
		FROM generate_series(1, $6::int)`, author, b.MinLng, b.MinLat, b.MaxLng, b.MaxLat, n*cells)
	if err != nil {
		t.Fatal(err)
	}
}

// newestInside is the brute force's first page: the newest limit+1 ids inside b.
func newestInside(t *testing.T, db *gsql.DB, b guides.BBox, limit int) []string {
	t.Helper()
	var want []string
	for _, p := range guidePoints(t, db) {
		if b.Contains(p.lat, p.lng) {
			want = append(want, p.id)
		}
	}
	slices.Sort(want)
	slices.Reverse(want)
	return want[:min(len(want), limit)]
}

// A viewport page reads what the page holds, not what its cells hold:
// when every cell of a 0.12° × 0.18° viewport (54 cells) goes from 40
// guides to 400, the cells' index hands out no more entries for the same
// first 100 (reading each cell up to LIMIT, it handed out 2.7× as many).
// Beside one cell ten times denser than the rest, read short at first,
// pages of 500 are still exact.
func TestViewportReadsFollowThePage(t *testing.T) {
	ctx := context.Background()
	db, store, author := oneConnStore(t)
	box := guides.BBox{MinLng: 127.0, MinLat: 37.4, MaxLng: 127.12, MaxLat: 37.58}
	view := guides.BBox{MinLng: 127.0001, MinLat: 37.4001, MaxLng: 127.1199, MaxLat: 37.5799}
	pages := func(limit, n int) int64 {
		t.Helper()
		before := indexReads(t, db, "guides_cell_newest_idx")
		var got []string
		cursor := ""
		for range n {
			items, truncated, err := store.InBBox(ctx, guides.BBoxQuery{BBox: view, Limit: limit, Before: cursor})
			if err != nil || !truncated {
				t.Fatalf("%d guides, truncated %v: %v", len(items), truncated, err)
			}
			for _, it := range items {
				got = append(got, it.ID)
			}
			cursor = items[len(items)-1].ID
		}
		read := indexReads(t, db, "guides_cell_newest_idx") - before
		if want := newestInside(t, db, view, limit*n); !slices.Equal(got, want) {
			t.Fatalf("pages of %d differ from the brute force's at %d", limit, firstDiff(got, want))
		}
		return read
	}
	scatter(t, db, author, box, 40)
	sparse := pages(100, 1)
	scatter(t, db, author, box, 360)
	dense := pages(100, 1)
	t.Logf("index entries for a page of 100: %d at 40 guides a cell, %d at 400", sparse, dense)
	if float64(dense) > 1.25*float64(sparse) {
		t.Errorf("ten times the guides in each cell: %d index entries read for the same page, against %d", dense, sparse)
	}
	scatter(t, db, author, guides.BBox{MinLng: 127.04, MinLat: 37.48, MaxLng: 127.06, MaxLat: 37.5}, 3600)
	pages(500, 2)
}
