package sql_test

import (
	"context"
	"slices"
	"testing"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// A dense tile's parts split it exactly: every guide of the tile is in one
// part, the one guides.SubRow and SubCol name (points on part edges, where
// rounding would show, included), newest first, with the tile's version;
// a part over the limit comes back TooLarge.
func TestLoadSubTilesPartitionTheTile(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author := guideUser(t, db)
	const div = 4
	// 37.5025 and 127.0025 are part edges at div 4 (and 37.51 a tile edge).
	lats := []float64{37.5025, 37.502499999999, 37.5025000000001, 37.501, 37.5099999999, 37.505, 37.5075}
	lngs := []float64{127.0025, 127.00249999999, 127.0025000000001, 127.009, 127.0, 127.005}
	for _, lat := range lats {
		for _, lng := range lngs {
			guideRow(t, store, author, lat, lng)
		}
	}
	tile := guides.TileOf(37.505, 127.005)
	whole, err := store.LoadTiles(ctx, []int64{tile}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var parts []guides.SubTile
	for r := range div {
		for c := range div {
			parts = append(parts, guides.SubTile{Tile: tile, Div: div, Row: r, Col: c})
		}
	}
	got, err := store.LoadSubTiles(ctx, parts, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(parts) {
		t.Fatalf("%d parts for %d asked", len(got), len(parts))
	}
	var seen []string
	for i, p := range got {
		want := parts[i]
		if p.ID != tile || p.Version != whole[0].Version || p.Count != len(p.Items) {
			t.Errorf("part %+v: id %d version %d (tile's %d) count %d items %d", want, p.ID, p.Version, whole[0].Version, p.Count, len(p.Items))
		}
		for j, it := range p.Items {
			at := guides.SubTileAt(guides.SubRow(it.Lat, div), guides.SubCol(it.Lng, div), div)
			if at != want {
				t.Errorf("guide at %v,%v in part %+v, Go says %+v", it.Lat, it.Lng, want, at)
			}
			if j > 0 && p.Items[j-1].ID <= it.ID {
				t.Errorf("part %+v not newest first", want)
			}
			seen = append(seen, it.ID)
		}
	}
	var all []string
	for _, it := range whole[0].Items {
		all = append(all, it.ID)
	}
	slices.Sort(seen)
	slices.Sort(all)
	if !slices.Equal(seen, all) {
		t.Errorf("parts hold %d guides, the tile %d (or some twice)", len(seen), len(all))
	}
	// The part whose south-west corner is 37.5025,127.0025 holds four.
	corner := guides.SubTileAt(guides.SubRow(37.5025, div), guides.SubCol(127.0025, div), div)
	small, err := store.LoadSubTiles(ctx, []guides.SubTile{corner}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !small[0].TooLarge || len(small[0].Items) != 0 {
		t.Errorf("a part over the limit: %+v", small[0])
	}
}
