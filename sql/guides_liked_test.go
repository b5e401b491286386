package sql_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// checkAllClusterCases checks every clusterCase, with its top guides,
// against the guides as the table has them now.
func checkAllClusterCases(t *testing.T, db *gsql.DB, store *gsql.Guides, step string) {
	t.Helper()
	all := likedGuides(t, db)
	for _, tc := range clusterCases {
		got, err := store.Clusters(context.Background(), guides.ClusterQuery{BBox: tc.bbox, Zoom: tc.zoom, Tag: tc.tag, WithTop: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: zoom %d tag %q", step, tc.zoom, tc.tag)
		checkClustering(t, got, wantClusters(all, tc.bbox, tc.zoom, tc.tag), tc.zoom, tc.tag, true)
	}
}

// A map's top guides (found from the like shards of its tiles) follow
// likes and unlikes, one by one and group-committed, and liked guides
// that move into other cells, tiles and tags: each cell's top is the
// most-liked guide now in it, at every zoom, with and without a tag.
func TestTopGuidesFollowLikesUnlikesAndMoves(t *testing.T) {
	ctx := context.Background()
	db, store, _ := clusterWorld(t, 3000)
	checkAllClusterCases(t, db, store, "seeded")

	// Liked guides move into central Seoul (every case's viewport), a
	// few hundred metres apart, each into another tile and cell.
	var liked []string
	if err := db.Pool.QueryRow(ctx, `SELECT array_agg(id) FROM (SELECT guide_id::text AS id FROM guide_like_shards
		GROUP BY 1 HAVING sum(n) > 0 ORDER BY 1 LIMIT 12) x`).Scan(&liked); err != nil || len(liked) < 12 {
		t.Fatalf("%d liked guides (%v)", len(liked), err)
	}
	for i, id := range liked {
		err := store.UpdateGuide(ctx, id, func(d *guides.Draft) error {
			d.Lat, d.Lng = 37.5515+0.0061*float64(i%4), 126.9515+0.0113*float64(i/4)
			d.Tags = []string{"food"}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	checkAllClusterCases(t, db, store, "moved")

	// Unlikes of half their likes, one by one.
	pairs, err := db.Pool.Query(ctx, `SELECT guide_id::text, user_id::text FROM guide_likes WHERE guide_id = ANY($1::uuid[]) ORDER BY 1, 2`, liked)
	if err != nil {
		t.Fatal(err)
	}
	var unlikes [][2]string
	for i := 0; pairs.Next(); i++ {
		var p [2]string
		if err := pairs.Scan(&p[0], &p[1]); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			unlikes = append(unlikes, p)
		}
	}
	for _, p := range unlikes {
		if _, err := store.Unlike(ctx, p[0], guides.Liker{UserID: p[1]}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	checkAllClusterCases(t, db, store, "unliked")

	// New likes, group-committed, for guides with no shard yet (inserted
	// by the batch statement) and for the moved ones.
	if err := store.StartLikeBatching(gsql.LikeBatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var fresh []string
	if err := db.Pool.QueryRow(ctx, `SELECT array_agg(id::text) FROM (SELECT id FROM guides g
		WHERE location::geometry && ST_MakeEnvelope(126.95, 37.55, 127.0, 37.58, 4326) AND hidden_at IS NULL
		  AND NOT EXISTS (SELECT 1 FROM guide_like_shards s WHERE s.guide_id = g.id) ORDER BY id LIMIT 8) x`).Scan(&fresh); err != nil {
		t.Fatal(err)
	}
	users := []string{guideUser(t, db), guideUser(t, db), guideUser(t, db)}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i, id := range append(fresh, liked[:4]...) {
		for _, u := range users[:1+i%3] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := store.Like(ctx, id, guides.Liker{UserID: u}, time.Now()); err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	store.StopLikeBatching()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkAllClusterCases(t, db, store, "liked in batches")
}

// A like committing while its guide moves to another tile is counted in
// the new tile: the like's statement read the old location, but the move
// wrote every shard of the guide (migrations/00020), so the like's insert
// meets the move's row, waits for it, and adds to it.
func TestALikeDuringAMoveIsCountedInTheNewTile(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	id := guideRow(t, store, guideUser(t, db), 37.5665, 126.978)
	liker := guideUser(t, db)

	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `UPDATE guides SET location = ST_SetSRID(ST_MakePoint(127.03, 37.5), 4326)::geography WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := store.Like(ctx, id, guides.Liker{UserID: liker}, time.Now())
		done <- err
	}()
	// Commit the move once the like waits on it, or once the like is
	// done without waiting (which leaves it in the old tile).
	var likeErr error
	liked, waiting := false, false
	for !liked && !waiting {
		select {
		case likeErr = <-done:
			liked = true
		case <-time.After(10 * time.Millisecond):
			if err := db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
				WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO guide_like_shards%')`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if !liked {
		likeErr = <-done
	}
	if likeErr != nil {
		t.Fatal(likeErr)
	}
	var stale, likes int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE s.tile <> guide_tile(g.location)), coalesce(sum(s.n), 0)
		FROM guide_like_shards s JOIN guides g ON g.id = s.guide_id WHERE g.id = $1`, id).Scan(&stale, &likes); err != nil {
		t.Fatal(err)
	}
	if stale != 0 || likes != 1 {
		t.Errorf("after the move: %d shards in another tile than the guide's, %d likes, want 0 and 1", stale, likes)
	}
	got, err := store.Clusters(ctx, guides.ClusterQuery{BBox: guides.BBox{MinLng: 127.02, MinLat: 37.49, MaxLng: 127.04, MaxLat: 37.51}, Zoom: 13, WithTop: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Top.ID != id || got[0].Top.LikeCount != 1 {
		t.Errorf("the new tile's clusters: %+v, want its guide with 1 like", got)
	}
}

// The liked step of a map's top guides reads the like shards of its tiles
// by their tile index and the guides they name by primary key: never the
// guides of its tiles by the tile index (at 10 M guides, 64,698 guides of
// a zoom-13 tile's band read to find 15 liked ones), nor all of guides.
// Tagged tile sums are read by the (tag, tile) key, not by the tile index
// (every tag's rows).
func TestLikedStepReadsShardsByTile(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	if err := seedgen.Guides(ctx, db, 30_000, 7, nil); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := db.Pool.QueryRow(ctx, `SELECT array_agg(id::text) FROM (SELECT id FROM guides
		WHERE location::geometry && ST_MakeEnvelope(126.9, 37.5, 127.1, 37.6, 4326) ORDER BY id LIMIT 15) x`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	u := guideUser(t, db)
	for _, id := range ids {
		if _, err := store.Like(ctx, id, guides.Liker{UserID: u}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// Likes elsewhere, as a live map has them: the shards are many more
	// than the viewport's.
	if _, err := db.Pool.Exec(ctx, `INSERT INTO guide_like_shards (guide_id, shard, n)
		SELECT id, k, 1 FROM (SELECT id FROM guides ORDER BY md5(id::text) LIMIT 5000) g, generate_series(0, 3) k
		ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `ANALYZE guide_like_shards`); err != nil {
		t.Fatal(err)
	}
	seoul13 := guides.VectorTileQuery{Z: 13, X: 6985, Y: 3170}.Clusters()
	seoul11 := guides.VectorTileQuery{Z: 11, X: 1746, Y: 792, Tag: "food"}.Clusters()
	seoul15 := guides.VectorTileQuery{Z: 15, X: 27941, Y: 12682}.Clusters()
	for _, tc := range []struct {
		name string
		sql  func(guides.ClusterQuery, []string) (string, []any)
		q    guides.ClusterQuery
	}{
		{"zoom 13 over Seoul", gsql.TileClustersSQL, seoul13},
		{"zoom 11 over Seoul, tagged", gsql.TileClustersSQL, seoul11},
		{"zoom 15 over Seoul", gsql.FineClustersSQL, seoul15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			query, args := tc.sql(tc.q, nil)
			plan, _, raw := explain(t, db, query, args...)
			shardsByTile := false
			plan.walk(func(n planNode) {
				switch {
				case n.IndexName == "guide_like_shards_tile_idx": // a bitmap index scan names no relation
					shardsByTile = true
				case n.Relation == "guide_like_shards" && n.NodeType == "Seq Scan":
					t.Errorf("the like shards are read whole: %s", raw)
				case n.IndexName == "guides_tile_idx":
					t.Errorf("guides are read by tile range: %s", raw)
				case n.Relation == "guides" && n.NodeType == "Seq Scan":
					t.Errorf("guides are read whole: %s", raw)
				case n.Relation == "guide_tile_tags" && n.NodeType == "Seq Scan", n.IndexName == "guide_tile_tags_tile_idx":
					t.Errorf("tagged tile rows read by %s %s: %s", n.NodeType, n.IndexName, raw)
				}
			})
			if !shardsByTile {
				t.Errorf("the like shards are not read by tile: %s", raw)
			}
		})
	}
}
