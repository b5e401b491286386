package sql_test

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// likedGuide is a guide as the brute-force checks see it.
type likedGuide struct {
	id       string
	lat, lng float64
	tags     []string
	likes    int64
}

// clusterWorld seeds n generated guides, then moves, deletes, retags and
// likes some (so the per-tile rows have been kept through every kind of
// write), and returns the store and every guide as the table has it.
func clusterWorld(t *testing.T, n int) (*gsql.DB, *gsql.Guides, []likedGuide) {
	t.Helper()
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	if err := seedgen.Guides(ctx, db, n, 7, nil); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	all := likedGuides(t, db)
	for i := range 40 {
		g := all[rng.IntN(len(all))]
		switch i % 4 {
		case 0: // moved a few hundred metres, often into another tile
			err := store.UpdateGuide(ctx, g.id, func(d *guides.Draft) error {
				d.Lat, d.Lng = d.Lat+0.003, d.Lng-0.004
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := store.DeleteGuide(ctx, g.id, func(guides.Draft) error { return nil }); err != nil {
				t.Fatal(err)
			}
		case 2: // tagged anew: it leaves its tags' rows for another's
			err := store.UpdateGuide(ctx, g.id, func(d *guides.Draft) error {
				d.Tags = []string{"cafe", "night"}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	all = likedGuides(t, db)
	users := make([]string, 4)
	for i := range users {
		users[i] = guideUser(t, db)
	}
	for range 120 {
		g := all[rng.IntN(len(all))]
		if _, err := store.Like(ctx, g.id, guides.Liker{UserID: users[rng.IntN(len(users))]}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return db, store, likedGuides(t, db)
}

// likedGuides is every guide a map shows (no hidden one), or only the
// guides of authors if any.
func likedGuides(t *testing.T, db *gsql.DB, authors ...string) []likedGuide {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT g.id::text, ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags,
		g.like_count + coalesce((SELECT sum(n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint FROM guides g
		WHERE g.hidden_at IS NULL AND (cardinality($1::uuid[]) = 0 OR g.author_id = ANY($1::uuid[]))`, append([]string{}, authors...))
	if err != nil {
		t.Fatal(err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (likedGuide, error) {
		var g likedGuide
		return g, r.Scan(&g.id, &g.lat, &g.lng, &g.tags, &g.likes)
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

type cellKey struct{ r, c int64 }

// wantClusters groups every guide with tag by the zoom's cells met by b.
func wantClusters(all []likedGuide, b guides.BBox, zoom int, tag string) map[cellKey][]likedGuide {
	r0, c0 := guides.ClusterCell(b.MinLat, b.MinLng, zoom)
	r1, c1 := guides.ClusterCell(b.MaxLat, b.MaxLng, zoom)
	want := map[cellKey][]likedGuide{}
	for _, g := range all {
		r, c := guides.ClusterCell(g.lat, g.lng, zoom)
		if r >= r0 && r <= r1 && c >= c0 && c <= c1 && (tag == "" || slices.Contains(g.tags, tag)) {
			want[cellKey{r, c}] = append(want[cellKey{r, c}], g)
		}
	}
	return want
}

// Every cluster, from per-tile sums or from the guides, with or without a
// tag: the count, the exact bounds, the single guide, and the most-liked
// guide (ties: the newest) are what a brute-force grouping finds.
// clusterCases are clusterings from per-tile sums and from the guides,
// with and without a tag.
var clusterCases = []struct {
	zoom int
	bbox guides.BBox
	tag  string
}{
	{5, guides.BBox{MinLng: 120, MinLat: 30, MaxLng: 135, MaxLat: 40}, ""},
	{5, guides.BBox{MinLng: 120, MinLat: 30, MaxLng: 135, MaxLat: 40}, "cafe"},
	{9, guides.BBox{MinLng: 126.5, MinLat: 37.2, MaxLng: 127.5, MaxLat: 37.9}, ""},
	{11, guides.BBox{MinLng: 126.5, MinLat: 37.2, MaxLng: 127.5, MaxLat: 37.9}, "food"},
	// Few enough tiles to be named one by one (tileCells), the wider one
	// above is read a row of tiles at a time.
	{12, guides.BBox{MinLng: 126.95, MinLat: 37.52, MaxLng: 127.02, MaxLat: 37.58}, "food"},
	{13, guides.BBox{MinLng: 126.9, MinLat: 37.5, MaxLng: 127.05, MaxLat: 37.6}, ""},
	{16, guides.BBox{MinLng: 126.95, MinLat: 37.55, MaxLng: 127.0, MaxLat: 37.58}, ""},
	{15, guides.BBox{MinLng: 126.9, MinLat: 37.5, MaxLng: 127.05, MaxLat: 37.6}, "food"},
}

func TestClustersAreExact(t *testing.T) {
	ctx := context.Background()
	_, store, all := clusterWorld(t, 4000)
	for _, tc := range clusterCases {
		want := wantClusters(all, tc.bbox, tc.zoom, tc.tag)
		for _, withTop := range []bool{false, true} {
			got, err := store.Clusters(ctx, guides.ClusterQuery{BBox: tc.bbox, Zoom: tc.zoom, Tag: tc.tag, WithTop: withTop})
			if err != nil {
				t.Fatal(err)
			}
			checkClustering(t, got, want, tc.zoom, tc.tag, withTop)
		}
	}
}

// checkClustering checks every cluster against the guides of its cell.
func checkClustering(t *testing.T, got []guides.Cluster, want map[cellKey][]likedGuide, zoom int, tag string, withTop bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("zoom %d tag %q: %d clusters, want %d", zoom, tag, len(got), len(want))
	}
	for _, cl := range got {
		r, c := guides.ClusterCell(cl.Bounds.MinLat, cl.Bounds.MinLng, zoom)
		checkCluster(t, cl, want[cellKey{r, c}], withTop)
	}
}

func checkCluster(t *testing.T, cl guides.Cluster, gs []likedGuide, withTop bool) {
	t.Helper()
	if int64(len(gs)) != cl.Count {
		t.Errorf("cluster at %v,%v counts %d, want %d", cl.Lat, cl.Lng, cl.Count, len(gs))
		return
	}
	b := guides.BBox{MinLat: gs[0].lat, MaxLat: gs[0].lat, MinLng: gs[0].lng, MaxLng: gs[0].lng}
	for _, g := range gs {
		b.MinLat, b.MaxLat = min(b.MinLat, g.lat), max(b.MaxLat, g.lat)
		b.MinLng, b.MaxLng = min(b.MinLng, g.lng), max(b.MaxLng, g.lng)
	}
	if cl.Bounds != b {
		t.Errorf("cluster of %d: bounds %+v, want %+v", cl.Count, cl.Bounds, b)
	}
	if cl.Count == 1 && (cl.GuideID != gs[0].id || cl.Lat != gs[0].lat || cl.Lng != gs[0].lng) {
		t.Errorf("single cluster %+v, want %+v", cl, gs[0])
	}
	if cl.Count > 1 && cl.GuideID != "" {
		t.Errorf("cluster of %d names a guide", cl.Count)
	}
	if !withTop {
		return
	}
	top := slices.MaxFunc(gs, func(a, b likedGuide) int { return cmp.Or(cmp.Compare(a.likes, b.likes), cmp.Compare(a.id, b.id)) })
	if cl.Top.ID != top.id || cl.Top.LikeCount != top.likes {
		t.Errorf("cluster of %d: top %s (%d likes), want %s (%d likes)", cl.Count, cl.Top.ID, cl.Top.LikeCount, top.id, top.likes)
	}
}

// Zooming to a cluster's expansion_zoom splits it, for 1,000 random
// clusters at random zooms and viewports: at that zoom its guides fall in
// two cells or more, and at the zoom before it (if above the cluster's
// own) in one. A cluster that never splits has all its guides in one cell
// at the deepest zoom.
func TestZoomingToExpansionZoomSplitsEveryCluster(t *testing.T) {
	ctx := context.Background()
	_, store, all := clusterWorld(t, 6000)
	rng := rand.New(rand.NewPCG(1, 2))
	tested, neverSplit := 0, 0
	for tested < 1000 {
		zoom := 3 + rng.IntN(guides.MaxZoom-3)
		g := all[rng.IntN(len(all))]
		half := 40 / float64(int64(1)<<zoom) // a few cells around a guide
		b := guides.BBox{MinLng: g.lng - half, MinLat: g.lat - half, MaxLng: g.lng + half, MaxLat: g.lat + half}
		tag := ""
		if rng.IntN(4) == 0 {
			tag = "food"
		}
		got, err := store.Clusters(ctx, guides.ClusterQuery{BBox: b, Zoom: zoom, Tag: tag})
		if err != nil {
			t.Fatal(err)
		}
		for _, cl := range got {
			if cl.Count < 2 || tested == 1000 {
				continue
			}
			tested++
			e := guides.ExpansionZoom(cl.Bounds, zoom)
			if e == 0 {
				neverSplit++
				r0, c0 := guides.ClusterCell(cl.Bounds.MinLat, cl.Bounds.MinLng, guides.MaxZoom)
				r1, c1 := guides.ClusterCell(cl.Bounds.MaxLat, cl.Bounds.MaxLng, guides.MaxZoom)
				if r0 != r1 || c0 != c1 {
					t.Errorf("cluster of %d at zoom %d says it never splits, yet spans cells at zoom %d", cl.Count, zoom, guides.MaxZoom)
				}
				continue
			}
			parent := func(lat, lng float64) bool {
				r, c := guides.ClusterCell(lat, lng, zoom)
				pr, pc := guides.ClusterCell(cl.Bounds.MinLat, cl.Bounds.MinLng, zoom)
				return r == pr && c == pc
			}
			children := 0
			var sum int64
			for _, z := range []int{e, e - 1} {
				if z == zoom {
					continue
				}
				kids, err := store.Clusters(ctx, guides.ClusterQuery{BBox: cl.Bounds, Zoom: z, Tag: tag})
				if err != nil {
					t.Fatal(err)
				}
				children, sum = 0, 0
				for _, k := range kids {
					if parent(k.Bounds.MinLat, k.Bounds.MinLng) {
						children++
						sum += k.Count
					}
				}
				if sum != cl.Count {
					t.Fatalf("cluster of %d at zoom %d: its cells at zoom %d hold %d", cl.Count, zoom, z, sum)
				}
				if z == e && children < 2 || z == e-1 && children != 1 {
					t.Errorf("cluster of %d at zoom %d, expansion zoom %d: %d cells at zoom %d", cl.Count, zoom, e, children, z)
				}
			}
		}
	}
	t.Logf("%d clusters split at their expansion zoom; %d are guides too close to ever split", tested-neverSplit, neverSplit)
}

// Clusters count what a viewport lists: over a box made of whole cells,
// with or without a tag, the clusters' counts add up to the guides the
// viewport returns.
func TestClusterCountsEqualViewportCounts(t *testing.T) {
	ctx := context.Background()
	_, store, _ := clusterWorld(t, 4000)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 60 {
		zoom := 9 + rng.IntN(9)
		lat, lng := 37.45+rng.Float64()*0.2, 126.85+rng.Float64()*0.25
		r, c := guides.ClusterCell(lat, lng, zoom)
		box := cellBox(r, c, zoom)
		if guides.ClusterCellCount(box, zoom) != 1 {
			t.Fatalf("zoom %d: box %+v is not one cell", zoom, box)
		}
		tag := []string{"", "food", "cafe", "night"}[rng.IntN(4)]
		cl, err := store.Clusters(ctx, guides.ClusterQuery{BBox: box, Zoom: zoom, Tag: tag})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, k := range cl {
			sum += k.Count
		}
		items, truncated, err := store.InBBox(ctx, guides.BBoxQuery{BBox: box, Limit: guides.MaxBBoxLimit, Tag: tag})
		if err != nil {
			t.Fatal(err)
		}
		if truncated {
			continue
		}
		if sum != int64(len(items)) {
			t.Errorf("zoom %d cell %v tag %q: clusters count %d, the viewport lists %d", zoom, box, tag, sum, len(items))
		}
	}
}

// cellBox is one cell of zoom's grid as a viewport, its edges pulled in a
// hair: a cell's nominal edges may round into its neighbours (37.48*100 is
// 3747.9999999999995), and a viewport includes its edges.
func cellBox(r, c int64, zoom int) guides.BBox {
	const hair = 1e-9
	var b guides.BBox
	if zoom <= guides.MaxTileClusterZoom {
		s := guides.ClusterShift(zoom)
		b.MinLat, b.MinLng, _, _ = guides.TileBounds(r<<s, c<<s)
		_, _, b.MaxLat, b.MaxLng = guides.TileBounds((r+1)<<s-1, (c+1)<<s-1)
	} else {
		f := guides.ClusterCellsPerDegree(zoom)
		b = guides.BBox{MinLng: float64(c) / f, MinLat: float64(r) / f, MaxLng: float64(c+1) / f, MaxLat: float64(r+1) / f}
	}
	return guides.BBox{MinLng: b.MinLng + hair, MinLat: b.MinLat + hair, MaxLng: b.MaxLng - hair, MaxLat: b.MaxLat - hair}
}

// Writers racing on the same few tiles leave every tile's bounds and
// newest guide, and every (tag, tile) row, exactly what the guides say:
// each refresh runs under the tile's row lock with a snapshot taken after
// it, so the last writer of a tile sees all the others.
func TestTileRowsStayExactUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author := guideUser(t, db)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			var mine []string
			for range 30 {
				lat, lng := 37.50+rng.Float64()*0.02, 127.00+rng.Float64()*0.02 // 2×2 tiles
				switch {
				case len(mine) == 0 || rng.IntN(3) == 0:
					id := uuid.Must(uuid.NewV7()).String()
					err := store.CreateGuide(ctx, guides.NewGuide{ID: id, AuthorID: author, Title: "r", Lat: lat, Lng: lng,
						Tags: []string{[]string{"food", "cafe", "night"}[rng.IntN(3)]}, CreatedAt: time.Now().UTC()})
					if err != nil {
						t.Error(err)
						return
					}
					mine = append(mine, id)
				case rng.IntN(4) == 0:
					i := rng.IntN(len(mine))
					if err := store.DeleteGuide(ctx, mine[i], func(guides.Draft) error { return nil }); err != nil {
						t.Error(err)
						return
					}
					mine = slices.Delete(mine, i, i+1)
				default:
					err := store.UpdateGuide(ctx, mine[rng.IntN(len(mine))], func(d *guides.Draft) error {
						d.Lat, d.Lng, d.Tags = lat, lng, []string{"food", "night"}[:1+rng.IntN(2)]
						return nil
					})
					if err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	checkTileRows(t, db)
}

// checkTileRows compares every tile's bounds and newest guide, every
// (tag, tile) row, and the same of every 8 × 8 block, with what the
// guides say.
func checkTileRows(t *testing.T, db *gsql.DB) {
	t.Helper()
	for what, q := range map[string]string{
		"tiles": `SELECT count(*) FROM guide_tiles t FULL JOIN (
				SELECT guide_tile(location) AS tile, min(ST_Y(location::geometry)) AS a, min(ST_X(location::geometry)) AS b,
				       max(ST_Y(location::geometry)) AS c, max(ST_X(location::geometry)) AS d, max(id::text) AS n
				FROM guides WHERE hidden_at IS NULL GROUP BY 1) g USING (tile)
			WHERE (t.min_lat, t.min_lng, t.max_lat, t.max_lng, t.newest::text) IS DISTINCT FROM (g.a, g.b, g.c, g.d, g.n)`,
		"tags": `SELECT count(*) FROM guide_tile_tags t FULL JOIN (
				SELECT x.tag, guide_tile(location) AS tile, count(*) AS k, min(ST_Y(location::geometry)) AS a,
				       max(ST_X(location::geometry)) AS d, max(id::text) AS n, sum(round(ST_Y(location::geometry) * 1e7))::bigint AS s
				FROM guides, unnest(tags) AS x(tag) WHERE hidden_at IS NULL GROUP BY 1, 2) g USING (tag, tile)
			WHERE (t.guides, t.min_lat, t.max_lng, t.newest::text, t.sum_lat_e7) IS DISTINCT FROM (g.k, g.a, g.d, g.n, g.s)`,
		// A block every guide has left keeps its row, counting none.
		"blocks": `SELECT count(*) FROM guide_blocks t FULL JOIN (
				SELECT guide_tile_block(guide_tile(location)) AS tile, count(*) AS k,
				       sum(round(ST_Y(location::geometry) * 1e7))::bigint AS s, sum(round(ST_X(location::geometry) * 1e7))::bigint AS x,
				       min(ST_Y(location::geometry)) AS a, min(ST_X(location::geometry)) AS b,
				       max(ST_Y(location::geometry)) AS c, max(ST_X(location::geometry)) AS d, max(id::text) AS n
				FROM guides WHERE hidden_at IS NULL GROUP BY 1) g USING (tile)
			WHERE (t.guides, t.sum_lat_e7, t.sum_lng_e7, t.min_lat, t.min_lng, t.max_lat, t.max_lng, t.newest::text)
			      IS DISTINCT FROM (coalesce(g.k, 0), coalesce(g.s, 0), coalesce(g.x, 0), g.a, g.b, g.c, g.d, g.n)`,
		"block tags": `SELECT count(*) FROM guide_block_tags t FULL JOIN (
				SELECT x.tag, guide_tile_block(guide_tile(location)) AS tile, count(*) AS k,
				       sum(round(ST_Y(location::geometry) * 1e7))::bigint AS s, sum(round(ST_X(location::geometry) * 1e7))::bigint AS x,
				       min(ST_Y(location::geometry)) AS a, min(ST_X(location::geometry)) AS b,
				       max(ST_Y(location::geometry)) AS c, max(ST_X(location::geometry)) AS d, max(id::text) AS n
				FROM guides, unnest(tags) AS x(tag) WHERE hidden_at IS NULL GROUP BY 1, 2) g USING (tag, tile)
			WHERE (t.guides, t.sum_lat_e7, t.sum_lng_e7, t.min_lat, t.min_lng, t.max_lat, t.max_lng, t.newest::text)
			      IS DISTINCT FROM (g.k, g.s, g.x, g.a, g.b, g.c, g.d, g.n)`,
	} {
		if n := countRows(t, db, q); n != 0 {
			t.Errorf("%s: %d rows differ from their guides", what, n)
		}
	}
}

// Guides written 500 to a statement (a bulk load: many to a tile, some
// without tags) leave every tile row and (tag, tile) row exactly what the
// guides say.
func TestTileRowsFollowABulkInsert(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	author := guideUser(t, db)
	_, err := db.Pool.Exec(ctx, `INSERT INTO guides (id, author_id, title, location, tags, created_at, updated_at)
		SELECT gen_random_uuid(), $1, 'old', ST_SetSRID(ST_MakePoint(127 + random() * 0.05, 37.5 + random() * 0.05), 4326)::geography,
			CASE i % 3 WHEN 0 THEN ARRAY['food'] WHEN 1 THEN ARRAY['cafe', 'night'] ELSE '{}' END, now(), now()
		FROM generate_series(1, 500) i`, author)
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM guide_tile_tags`); n == 0 {
		t.Fatal("no (tag, tile) rows after the bulk insert")
	}
	checkTileRows(t, db)
}
