package sql_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// planNode is the part of EXPLAIN (FORMAT JSON) the test reads.
type planNode struct {
	NodeType   string     `json:"Node Type"`
	Relation   string     `json:"Relation Name"`
	IndexName  string     `json:"Index Name"`
	OrderBy    string     `json:"Order By"`
	ActualRows float64    `json:"Actual Rows"`
	Loops      float64    `json:"Actual Loops"`
	HeapFetch  float64    `json:"Heap Fetches"`
	Plans      []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// The nearby query must be answered in index order: the KNN scan of the
// geography GiST index ordered by distance, stopped by LIMIT, with no sort
// of every candidate (the plan that collapses to ~20 queries/s in a dense
// city), and no JIT (whose compile time dwarfs the query).
func TestNearbyPlanIsIndexOrderedKNN(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	if err := seedgen.Guides(ctx, db, 30_000, 7, nil); err != nil {
		t.Fatal(err)
	}
	const limit = 21
	for _, tc := range []struct {
		name     string
		lat, lng float64
		after    *float64
	}{
		{"central Seoul", 37.5665, 126.9780, nil},
		{"central Seoul, second page", 37.5665, 126.9780, ptr(250.0)},
		{"empty sea", 36.0, 124.5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, jit, raw := explain(t, db, gsql.NearbySQL, tc.lat, tc.lng, tc.after, limit)
			var knn *planNode
			plan.walk(func(n planNode) {
				switch n.NodeType {
				case "Sort", "Incremental Sort":
					t.Errorf("the plan sorts: %s", raw)
				case "Index Scan":
					if n.IndexName == "guides_location_idx" && n.OrderBy != "" {
						knn = &n
					}
				}
			})
			if knn == nil {
				t.Fatalf("no KNN scan of guides_location_idx ordered by distance: %s", raw)
			}
			if tc.after == nil && knn.ActualRows > limit {
				t.Errorf("the KNN scan produced %v rows for LIMIT %d: it did not stop", knn.ActualRows, limit)
			}
			if jit {
				t.Errorf("the query was JIT-compiled: %s", raw)
			}
		})
	}
}

// A viewport in a dense city must visit the table for the guides it
// returns, not for every guide in the rectangle (a bitmap scan of the
// planar index) nor for every guide newer than its answer (the primary
// key walked backwards): the cells' index carries the locations, and
// only the winners are read by primary key.
func TestViewportPlanReadsTheAnswerOnly(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	if err := seedgen.Guides(ctx, db, 30_000, 7, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		box   guides.BBox
		limit int
	}{
		{"a street in central Seoul", guides.BBox{MinLng: 126.973, MinLat: 37.558, MaxLng: 126.983, MaxLat: 37.574}, 20},
		{"central Seoul", guides.BBox{MinLng: 126.948, MinLat: 37.518, MaxLng: 127.008, MaxLat: 37.614}, 100},
		{"central Busan", guides.BBox{MinLng: 129.06, MinLat: 35.155, MaxLng: 129.09, MaxLat: 35.203}, 100},
		// The widest viewport a map list asks for (0.2° × 0.32°), where a
		// generic plan of the single-index form read all of the rectangle.
		{"0.2° over Seoul", guides.BBox{MinLng: 126.878, MinLat: 37.4065, MaxLng: 127.078, MaxLat: 37.7265}, 100},
		{"0.2° over Gangwon", guides.BBox{MinLng: 128.3, MinLat: 37.64, MaxLng: 128.5, MaxLat: 37.96}, 100},
		{"0.2° over the sea", guides.BBox{MinLng: 129.9, MinLat: 37.34, MaxLng: 130.1, MaxLat: 37.66}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			query, args := gsql.BBoxQuerySQL(guides.BBoxQuery{BBox: tc.box, Limit: tc.limit}, tc.limit+9)
			plan, _, raw := explain(t, db, query, args...)
			cells := 0
			plan.walk(func(n planNode) {
				if n.Relation != "guides" {
					return
				}
				switch {
				case n.NodeType == "Index Only Scan" && n.IndexName == "guides_cell_newest_idx":
					cells++
					if n.HeapFetch > 0 {
						t.Errorf("the cell scan visited the table %v times: %s", n.HeapFetch, raw)
					}
				case n.NodeType == "Index Scan" && n.IndexName == "guides_pkey" && n.ActualRows <= float64(tc.limit+9):
				default:
					t.Errorf("%s on %s read %v guides: %s", n.NodeType, n.IndexName, n.ActualRows, raw)
				}
			})
			if cells == 0 {
				t.Errorf("no scan of the cells' index: %s", raw)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// explain runs query with EXPLAIN ANALYZE and returns its plan, whether it
// was JIT-compiled, and the raw plan for messages.
func explain(t *testing.T, db *gsql.DB, query string, args ...any) (planNode, bool, []byte) {
	t.Helper()
	var raw []byte
	if err := db.Pool.QueryRow(context.Background(), `EXPLAIN (ANALYZE, FORMAT JSON) `+query, args...).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var doc []struct {
		Plan planNode  `json:"Plan"`
		JIT  *struct{} `json:"JIT"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc[0].Plan, doc[0].JIT != nil, raw
}

// The map's range statements (clusterings, vector tiles, viewports) are
// planned for their values on every run, never kept as prepared
// statements that PostgreSQL turns generic after five runs (see
// planEach): after ten runs of each, no connection holds one prepared.
func TestMapRangeStatementsArePlannedPerRun(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	stack(t, db, guideUser(t, db), 3, 37.5, 127.0)
	wide := guides.BBox{MinLng: 120, MinLat: 30, MaxLng: 135, MaxLat: 42}
	seoul := guides.BBox{MinLng: 126.9, MinLat: 37.4, MaxLng: 127.1, MaxLat: 37.6}
	for range 10 {
		for _, q := range []guides.ClusterQuery{
			{BBox: wide, Zoom: 5, WithTop: true}, {BBox: wide, Zoom: 5, Tag: "food", WithTop: true},
			{BBox: seoul, Zoom: 15}, {BBox: seoul, Zoom: 9},
		} {
			if _, err := store.Clusters(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range []guides.BBoxQuery{{BBox: seoul, Limit: 20}, {BBox: wide, Limit: 20}, {BBox: wide, Tag: "food", Limit: 20}} {
			if _, _, err := store.InBBox(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	conns := db.Pool.AcquireAllIdle(ctx)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	if len(conns) == 0 {
		t.Fatal("no idle connection to look at")
	}
	for _, c := range conns {
		var kept []string
		if err := c.QueryRow(ctx, `SELECT coalesce(array_agg(left(statement, 80)), '{}') FROM pg_prepared_statements
			WHERE statement NOT LIKE '%pg_prepared_statements%'
			  AND (statement LIKE '%guide_tile%' OR statement LIKE '%ST_MakeEnvelope%' OR statement LIKE '%guide_cell%')`).Scan(&kept); err != nil {
			t.Fatal(err)
		}
		if len(kept) > 0 {
			t.Errorf("map range statements kept prepared (turned generic after five runs): %q", kept)
		}
	}
}
