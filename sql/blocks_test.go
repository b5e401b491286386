package sql_test

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/blocks"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

func block(t *testing.T, s *gsql.Blocks, blocker, blocked string, max int) (blocks.Block, error) {
	t.Helper()
	return s.Block(context.Background(), blocker, blocked, uuid.Must(uuid.NewV7()).String(),
		time.Now().UTC().Truncate(time.Microsecond), max)
}

func fieldCode(err error, field string) string {
	for _, f := range guidepost.ErrorFields(err) {
		if f.Field == field {
			return f.Code
		}
	}
	return ""
}

// A block is made once: blocking again returns it unchanged. Unknown and
// deleted accounts are ENOTFOUND naming user_id, and the set, the list and
// the like check follow every change.
func TestBlocksStore(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewBlocks(db)
	a, b, c := guideUser(t, db), guideUser(t, db), guideUser(t, db)
	first, err := block(t, s, a, b, 10)
	if err != nil || first.User.ID != b || first.User.DisplayName != "u" {
		t.Fatalf("block: %+v, %v", first, err)
	}
	again, err := block(t, s, a, b, 10)
	if err != nil || again != first {
		t.Fatalf("block again: %+v, %v; want %+v", again, err, first)
	}
	if _, err := block(t, s, a, c, 10); err != nil {
		t.Fatal(err)
	}
	set, err := s.Of(ctx, a)
	if err != nil || set.Len() != 2 || !set.Has(b) || !set.Has(c) || set.BlockedBySomeone() {
		t.Fatalf("a's set: %+v, %v", set, err)
	}
	if set, _ := s.Of(ctx, b); set.Len() != 0 || !set.BlockedBySomeone() {
		t.Fatalf("b's set: %+v", set)
	}
	page, err := s.List(ctx, a, "", 1)
	if err != nil || len(page) != 1 || page[0].User.ID != c {
		t.Fatalf("first page: %+v, %v", page, err)
	}
	page, err = s.List(ctx, a, page[0].ID, 10)
	if err != nil || len(page) != 1 || page[0].User.ID != b {
		t.Fatalf("second page: %+v, %v", page, err)
	}

	gs := gsql.NewGuides(db)
	g := guideRow(t, gs, a, 37.5, 127)
	if _, err := gs.Like(ctx, g, guides.Liker{UserID: b}, time.Now()); err != guides.ErrBlockedLike {
		t.Fatalf("b likes a's guide: %v", err)
	}
	if st, err := gs.Like(ctx, g, guides.Liker{UserID: a}, time.Now()); err != nil || st.LikeCount != 1 {
		t.Fatalf("a likes their own guide: %+v, %v", st, err)
	}

	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		_, err := block(t, s, a, id, 10)
		if guidepost.ErrorCode(err) != guidepost.ENOTFOUND || fieldCode(err, "user_id") != guidepost.FNOTFOUND {
			t.Errorf("block %s: %v", id, err)
		}
		if err := s.Unblock(ctx, a, id); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
			t.Errorf("unblock %s: %v", id, err)
		}
	}
	if err := s.Unblock(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Unblock(ctx, a, b); err != nil {
		t.Fatalf("unblock twice: %v", err)
	}
	if set, _ := s.Of(ctx, a); set.Len() != 1 || set.Has(b) {
		t.Fatalf("after unblock: %+v", set)
	}
	if err := gsql.NewAccounts(db).MarkDeleted(ctx, c, time.Now()); err != nil {
		t.Fatal(err)
	}
	if page, _ := s.List(ctx, a, "", 10); len(page) != 0 {
		t.Fatalf("a deleted account is listed: %+v", page)
	}
	if _, err := block(t, s, b, c, 10); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("blocking a deleted account: %v", err)
	}
}

// Racing blocks of one blocker never pass the cap together, and racing
// blocks and unblocks of one pair leave either one row or none.
func TestBlocksRace(t *testing.T) {
	db := testkit.DB(t)
	s := gsql.NewBlocks(db)
	blocker := guideUser(t, db)
	others := make([]string, 12)
	for i := range others {
		others[i] = guideUser(t, db)
	}
	var ok, capped atomic.Int32
	var wg sync.WaitGroup
	for _, o := range others {
		wg.Go(func() {
			_, err := block(t, s, blocker, o, 5)
			switch {
			case err == nil:
				ok.Add(1)
			case fieldCode(err, "user_id") == guidepost.FLIMITREACHED:
				capped.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 5 || capped.Load() != 7 {
		t.Fatalf("%d blocked, %d over the cap; want 5 and 7", ok.Load(), capped.Load())
	}
	if n := countRows(t, db, `SELECT count(*) FROM user_blocks WHERE blocker_id = $1`, blocker); n != 5 {
		t.Fatalf("%d rows", n)
	}
	a, b := guideUser(t, db), guideUser(t, db)
	for i := range 20 {
		wg.Go(func() {
			if i%2 == 0 {
				if _, err := block(t, s, a, b, 10); err != nil {
					t.Error(err)
				}
			} else if err := s.Unblock(context.Background(), a, b); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := countRows(t, db, `SELECT count(*) FROM user_blocks WHERE blocker_id = $1`, a); n > 1 {
		t.Fatalf("%d rows for one pair", n)
	}
}

type blockRecorder struct {
	mu      sync.Mutex
	synced  int
	changes []string
}

func (r *blockRecorder) Synced()    { r.mu.Lock(); r.synced++; r.mu.Unlock() }
func (r *blockRecorder) Lost(error) {}
func (r *blockRecorder) Changed(a, b string) {
	r.mu.Lock()
	r.changes = append(r.changes, a+":"+b)
	r.mu.Unlock()
}

func (r *blockRecorder) heard(change string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.changes {
		if c == change {
			return true
		}
	}
	return false
}

// Every block and unblock, and the cascade of an account's purge, is
// announced after its commit.
func TestBlockFeedAnnouncesEveryChange(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	db := testkit.DB(t)
	s := gsql.NewBlocks(db)
	r := &blockRecorder{}
	done := make(chan struct{})
	go func() { defer close(done); s.WatchBlocks(ctx, r) }()
	defer func() { cancel(); <-done }()
	waitFor(t, func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.synced > 0 })
	a, b, c := guideUser(t, db), guideUser(t, db), guideUser(t, db)
	if _, err := block(t, s, a, b, 10); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return r.heard(a + ":" + b) })
	if _, err := block(t, s, c, a, 10); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.changes = nil
	r.mu.Unlock()
	if err := s.Unblock(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return r.heard(a + ":" + b) })
	if _, err := db.Pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, c); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return r.heard(c + ":" + a) })
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A clustering without some authors is the clustering of the other
// authors' guides: counts, bounds, centroids, single guides and the
// most-liked guide, from per-tile sums and from the guides, with and
// without a tag.
func TestClustersWithoutAuthorsAreExact(t *testing.T) {
	ctx := context.Background()
	db, store, all := clusterWorld(t, 4000)
	rows, err := db.Pool.Query(ctx, `SELECT DISTINCT author_id::text FROM guides ORDER BY 1 LIMIT 2`)
	if err != nil {
		t.Fatal(err)
	}
	var authors []string
	for rows.Next() {
		var a string
		rows.Scan(&a)
		authors = append(authors, a)
	}
	blockedGuides := map[string]bool{}
	ids, err := db.Pool.Query(ctx, `SELECT id::text FROM guides WHERE author_id = ANY($1::uuid[])`, authors)
	if err != nil {
		t.Fatal(err)
	}
	for ids.Next() {
		var id string
		ids.Scan(&id)
		blockedGuides[id] = true
	}
	var rest []likedGuide
	for _, g := range all {
		if !blockedGuides[g.id] {
			rest = append(rest, g)
		}
	}
	if len(blockedGuides) == 0 || len(rest) == len(all) {
		t.Fatal("the blocked authors have no guides")
	}
	hits := 0
	for _, tc := range clusterCases {
		q := guides.ClusterQuery{BBox: tc.bbox, Zoom: tc.zoom, Tag: tc.tag}
		hit, err := store.AuthorsIn(ctx, authors, q)
		want := wantClusters(rest, tc.bbox, tc.zoom, tc.tag)
		if present := guideCount(want) != guideCount(wantClusters(all, tc.bbox, tc.zoom, tc.tag)); err != nil || hit != present {
			t.Fatalf("zoom %d: AuthorsIn says %v (%v), the blocked authors' guides are there: %v", tc.zoom, hit, err, present)
		}
		if hit {
			hits++
		}
		for _, withTop := range []bool{false, true} {
			q.WithTop = withTop
			got, err := store.ClustersWithout(ctx, q, authors)
			if err != nil {
				t.Fatal(err)
			}
			checkClustering(t, got, want, tc.zoom, tc.tag, withTop)
			for _, cl := range got {
				r, c := guides.ClusterCell(cl.Bounds.MinLat, cl.Bounds.MinLng, tc.zoom)
				checkCentroid(t, cl, want[cellKey{r, c}])
			}
		}
	}
	if hits < len(clusterCases)-1 {
		t.Fatalf("the blocked authors have guides in only %d of the clusterings", hits)
	}
	if hit, err := store.AuthorsIn(ctx, []string{uuid.NewString()}, guides.ClusterQuery{
		BBox: guides.BBox{MinLng: 120, MinLat: 30, MaxLng: 135, MaxLat: 40}, Zoom: 5}); err != nil || hit {
		t.Fatalf("an author with no guide: %v, %v", hit, err)
	}
}

func guideCount(cells map[cellKey][]likedGuide) (n int) {
	for _, gs := range cells {
		n += len(gs)
	}
	return n
}

// checkCentroid compares a cluster's centre with the mean of its guides,
// to a microdegree: the mean of what is left, not of what was there.
func checkCentroid(t *testing.T, cl guides.Cluster, gs []likedGuide) {
	t.Helper()
	if len(gs) < 2 {
		return
	}
	var lat, lng float64
	for _, g := range gs {
		lat += math.Round(g.lat*1e7) / 1e7
		lng += math.Round(g.lng*1e7) / 1e7
	}
	lat, lng = lat/float64(len(gs)), lng/float64(len(gs))
	if math.Abs(cl.Lat-lat) > 1e-6 || math.Abs(cl.Lng-lng) > 1e-6 {
		t.Errorf("cluster of %d: centre %v,%v, want %v,%v", cl.Count, cl.Lat, cl.Lng, lat, lng)
	}
}
