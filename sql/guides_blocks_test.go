package sql_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// lowZoomCases are clusterings whose cells are whole 8 × 8 blocks (zoom
// 10 and below) over the block the writes below go to, and one just
// above them.
var lowZoomCases = []struct {
	zoom int
	bbox guides.BBox
}{
	{5, guides.BBox{MinLng: 120, MinLat: 30, MaxLng: 135, MaxLat: 40}},
	{8, guides.BBox{MinLng: 126, MinLat: 37, MaxLng: 128, MaxLat: 38}},
	{10, guides.BBox{MinLng: 126.8, MinLat: 37.4, MaxLng: 127.2, MaxLat: 37.7}},
	{11, guides.BBox{MinLng: 126.8, MinLat: 37.4, MaxLng: 127.2, MaxLat: 37.7}},
}

// Every kind of write to the guides of one block (a new guide, a move
// inside the block and out of it, a retag, a hold and its lift, a
// deletion of the block's newest guide and of its bounds) leaves the
// block rows exact, and the low-zoom clusterings summed from them equal
// a brute-force grouping of the guides, with or without a tag, with or
// without a blocked author's guides.
func TestLowZoomClustersFollowEveryWrite(t *testing.T) {
	ctx := context.Background()
	db, store, _ := clusterWorld(t, 2000)
	blocked := guideUser(t, db)
	// Tiles 37.52–37.59 × 126.96–127.03 are one block (tile rows
	// 12752–12759, columns 30696–30703).
	at := func(i int) (float64, float64) { return 37.525 + float64(i%7)*0.01, 126.965 + float64(i/7%7)*0.01 }
	var ids []string
	for i := range 12 {
		lat, lng := at(i * 5)
		author := guideUser(t, db)
		if i%3 == 0 {
			author = blocked
		}
		id := uuid.Must(uuid.NewV7()).String()
		err := store.CreateGuide(ctx, guides.NewGuide{ID: id, AuthorID: author, Title: "b", Lat: lat, Lng: lng,
			Tags: []string{[]string{"food", "cafe"}[i%2]}, CreatedAt: time.Now().UTC()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	check := func(step string) {
		t.Helper()
		checkTileRows(t, db)
		all := likedGuides(t, db)
		theirs := map[string]bool{}
		for _, g := range likedGuides(t, db, blocked) {
			theirs[g.id] = true
		}
		var rest []likedGuide
		for _, g := range all {
			if !theirs[g.id] {
				rest = append(rest, g)
			}
		}
		for _, tc := range lowZoomCases {
			for _, tag := range []string{"", "food", "cafe"} {
				q := guides.ClusterQuery{BBox: tc.bbox, Zoom: tc.zoom, Tag: tag, WithTop: true}
				got, err := store.Clusters(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				checkClustering(t, got, wantClusters(all, tc.bbox, tc.zoom, tag), tc.zoom, tag, true)
				got, err = store.ClustersWithout(ctx, q, []string{blocked})
				if err != nil {
					t.Fatal(err)
				}
				checkClustering(t, got, wantClusters(rest, tc.bbox, tc.zoom, tag), tc.zoom, tag, true)
			}
		}
		if t.Failed() {
			t.Fatalf("after %s", step)
		}
	}
	check("creating")
	update := func(step, id string, edit func(d *guides.Draft)) {
		t.Helper()
		if err := store.UpdateGuide(ctx, id, func(d *guides.Draft) error { edit(d); return nil }); err != nil {
			t.Fatal(err)
		}
		check(step)
	}
	update("a move inside the block", ids[1], func(d *guides.Draft) { d.Lat, d.Lng = at(3) })
	update("a move out of the block", ids[2], func(d *guides.Draft) { d.Lat, d.Lng = 35.1, 129.0 })
	update("a move into the block", ids[2], func(d *guides.Draft) { d.Lat, d.Lng = 37.5899, 127.0299 })
	update("a retag", ids[4], func(d *guides.Draft) { d.Tags = []string{"cafe", "night"} })
	for _, hidden := range []string{"now()", "NULL"} {
		if _, err := db.Pool.Exec(ctx, `UPDATE guides SET hidden_at = `+hidden+` WHERE id = $1`, ids[5]); err != nil {
			t.Fatal(err)
		}
		check("a hold set to " + hidden)
	}
	// The newest guide of the block, then the one at its east edge.
	for _, id := range []string{ids[len(ids)-1], ids[2]} {
		if err := store.DeleteGuide(ctx, id, func(guides.Draft) error { return nil }); err != nil {
			t.Fatal(err)
		}
		check("a deletion")
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM guides WHERE location::geometry && ST_MakeEnvelope(126, 37, 128, 38, 4326)`); err != nil {
		t.Fatal(err)
	}
	check("emptying the blocks")
}

// A clustering whose cells are whole blocks reads the block rows, not
// the tile rows under them (~1/64 as many), with or without a tag; with a
// blocked author it reads tile rows only of the blocks the author has a
// guide in. Finer zooms read tile rows.
func TestLowZoomClustersReadBlockRows(t *testing.T) {
	ctx := context.Background()
	db, _, _ := clusterWorld(t, 2000)
	author := guideUser(t, db)
	stack(t, db, author, 2, 37.5665, 126.978)
	if _, err := db.Pool.Exec(ctx, `ANALYZE guide_tiles, guide_tile_tags, guide_blocks, guide_block_tags`); err != nil {
		t.Fatal(err)
	}
	// A test's few thousand tile rows are cheaper to read whole than by
	// index; off, the plans are those of a country's.
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	korea := guides.BBox{MinLng: 124, MinLat: 33, MaxLng: 131, MaxLat: 39}
	for zoom := 5; zoom <= 13; zoom++ {
		for _, tag := range []string{"", "food"} {
			for _, authors := range [][]string{nil, {author}} {
				q := guides.ClusterQuery{BBox: korea, Zoom: zoom, Tag: tag, WithTop: true}
				stmt, args := gsql.TileClustersSQL(q, authors)
				var raw []byte
				if err := conn.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+stmt, args...).Scan(&raw); err != nil {
					t.Fatal(err)
				}
				var doc []struct{ Plan planNode }
				if err := json.Unmarshal(raw, &doc); err != nil {
					t.Fatal(err)
				}
				plan := doc[0].Plan
				rows := map[string]float64{}
				plan.walk(func(n planNode) { rows[n.Relation] += n.ActualRows * n.Loops })
				fine, coarse := "guide_tiles", "guide_blocks"
				if tag != "" {
					fine, coarse = "guide_tile_tags", "guide_block_tags"
				}
				read := strings.Contains(string(raw), `"`+coarse+`"`)
				if zoom <= 10 && (!read || rows[fine] > 64) || zoom > 10 && read {
					t.Errorf("zoom %d tag %q authors %v: %.0f rows of %s, %.0f of %s, want the blocks' up to zoom 10 (64 tile rows at most with a blocked author):\n%s",
						zoom, tag, authors, rows[coarse], coarse, rows[fine], fine, raw)
				}
			}
		}
	}
}

func TestBlockOfTileIsItsSouthWestTile(t *testing.T) {
	db := testkit.DB(t)
	for _, c := range []struct{ lat, lng float64 }{{37.5665, 126.978}, {33.0, 124.0}, {-33.87, 151.21}, {0.004, -0.004}} {
		r, col := guides.TileRow(c.lat), guides.TileCol(c.lng)
		want := (r&^7)*40000 + col&^7
		got := int64(countRows(t, db, `SELECT guide_tile_block(guide_tile(ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography))`, c.lat, c.lng))
		if got != want {
			t.Errorf("%v: block %d, want %d", c, got, want)
		}
	}
}
