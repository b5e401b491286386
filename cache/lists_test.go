package cache_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// The words the seed writes bodies with, common and rare, and a few that
// match nothing or only inside words.
var searches = []string{"카페", "coffee", "맛집 view", "야경", "palace", "makgeolli", "등대", "카페 coffee", "집", "tea", "nothing"}

// A text search gives the same answer with the cache as without it, on
// every page, whichever tier would hold the tiles; and a viewport walked
// page by page through the cache is the database's walk.
func TestCachedSearchAndViewportPagesEqualTheDatabase(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	seed(t, db)
	store := gsql.NewGuides(db)
	c := startCache(t, store, nil, cache.Config{})
	rng := rand.New(rand.NewPCG(5, 6))
	found := 0
	for i := range 200 {
		q := randomQuery(rng)
		q.Text = searches[rng.IntN(len(searches))]
		for page := 0; page < 3; page++ {
			want, err := store.Nearby(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Nearby(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameItems(got, want); diff != "" {
				t.Fatalf("search %d page %d %+v:\n%s", i, page, q, diff)
			}
			found += len(want)
			if len(want) < q.Limit || len(want) == 0 {
				break
			}
			last := want[len(want)-1]
			q.After = &guides.Position{DistanceM: last.DistanceM, ID: last.ID}
		}
	}
	if found < 500 {
		t.Errorf("the searches found only %d guides: the comparison says little", found)
	}
	if n := c.value("guidepost_guides_cache_fallbacks_total", "nearby", "search"); n == 0 {
		t.Error("no text search was counted as answered by the database")
	}

	for i := range 60 {
		q := randomQuery(rng)
		w := math.Exp(math.Log(0.002) + rng.Float64()*math.Log(100))
		b := guides.BBox{MinLng: q.Lng - w/2, MinLat: q.Lat - w/2, MaxLng: q.Lng + w/2, MaxLat: q.Lat + w/2}
		bq := guides.BBoxQuery{BBox: b, Limit: 1 + rng.IntN(50), Tag: q.Tag}
		if i%3 == 0 {
			bq.Text = searches[rng.IntN(len(searches))]
		}
		warmed := false
		for page := 0; page < 5; page++ {
			want, wantMore, err := store.InBBox(ctx, bq)
			if err != nil {
				t.Fatal(err)
			}
			if !warmed { // the first answer may come from the database while tiles load
				c.InBBox(ctx, bq)
				settle(t, c)
				warmed = true
			}
			got, gotMore, err := c.InBBox(ctx, bq)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameItems(got, want); diff != "" || gotMore != wantMore {
				t.Fatalf("viewport %d page %d %+v: more %v vs %v\n%s", i, page, bq, gotMore, wantMore, diff)
			}
			if !wantMore {
				break
			}
			bq.Before = want[len(want)-1].ID
		}
	}
	if n := c.value("guidepost_guides_cache_answers_total", "bbox", "cache"); n < 30 {
		t.Errorf("only %.0f viewport pages answered from tiles", n)
	}
}
