package sql_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

func batching(t *testing.T, store *gsql.Guides, opt gsql.LikeBatchOptions) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	opt.Registerer = reg
	if err := store.StartLikeBatching(opt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.StopLikeBatching)
	return reg
}

// The storm of TestLikeStormIsExactAtStoreLevel, group-committed: the same
// exact counts, in far fewer commits than likes.
func TestBatchedLikeStormIsExact(t *testing.T) {
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	reg := batching(t, store, gsql.LikeBatchOptions{Window: 5 * time.Millisecond})
	likeStormIsExact(t, db, store)
	if err := store.StartLikeBatching(gsql.LikeBatchOptions{}); err == nil {
		t.Error("started twice")
	}
	batches, requests := histogram(t, reg, "guidepost_likes_batch_size")
	t.Logf("%.0f requests in %d batches", requests, batches)
	if requests < 800 || float64(batches) > requests/4 {
		t.Errorf("%.0f requests in %d batches: not grouped", requests, batches)
	}
	if n, _ := histogram(t, reg, "guidepost_likes_batch_wait_seconds"); n < 800 {
		t.Errorf("waits observed for %d requests", n)
	}
}

// oneCommitter is a store whose likes group-commit on one committer,
// each batch waiting window to fill (so requests sent within it share
// it), and a guide author.
func oneCommitter(t *testing.T, window time.Duration) (*gsql.DB, *gsql.Guides, *prometheus.Registry, string) {
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	reg := batching(t, store, gsql.LikeBatchOptions{Committers: 1, Window: window})
	return db, store, reg, guideUser(t, db)
}

func histogram(t *testing.T, reg *prometheus.Registry, name string) (count uint64, sum float64) {
	h := metric(t, reg, name).GetHistogram()
	return h.GetSampleCount(), h.GetSampleSum()
}

func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	return metric(t, reg, name).GetCounter().GetValue()
}

func metric(t *testing.T, reg *prometheus.Registry, name string) *dto.Metric {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0]
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

// One batch with everything at once: double taps, a like and an unlike of
// the same pair in order, a missing guide, a deleted user. Each request
// gets its own answer, as if written alone in arrival order.
func TestBatchAnswersEachRequestAsIfAlone(t *testing.T) {
	ctx := context.Background()
	db, store, reg, author := oneCommitter(t, 200*time.Millisecond)
	a, b := guideRow(t, store, author, 37.5, 127.0), guideRow(t, store, author, 37.6, 127.1)
	u1, u2, gone := guideUser(t, db), guideUser(t, db), guideUser(t, db)
	if _, err := db.Pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, gone); err != nil {
		t.Fatal(err)
	}
	type call struct {
		like        bool
		guide, user string
		liked       bool
		count       int64
		code        string
	}
	calls := []call{
		{like: true, guide: a, user: u1, liked: true, count: 1},
		{like: true, guide: a, user: u1, liked: true, count: 1}, // double tap
		{like: true, guide: a, user: u2, liked: true, count: 2},
		{like: true, guide: b, user: u1, liked: true, count: 1},
		{like: true, guide: uuid.NewString(), user: u1, code: guidepost.ENOTFOUND},
		{like: true, guide: b, user: gone, code: guidepost.EUNAUTHORIZED},
	}
	// Submitted in order, 20 ms apart, into one 200 ms window.
	results := make([]call, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			var err error
			var st struct {
				liked bool
				n     int64
			}
			if c.like {
				s, e := store.Like(ctx, c.guide, guides.Liker{UserID: c.user}, time.Now())
				st.liked, st.n, err = s.Liked, s.LikeCount, e
			} else {
				s, e := store.Unlike(ctx, c.guide, guides.Liker{UserID: c.user}, time.Now())
				st.liked, st.n, err = s.Liked, s.LikeCount, e
			}
			results[i] = call{liked: st.liked, count: st.n, code: guidepost.ErrorCode(err)}
		})
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	for i, c := range calls {
		r := results[i]
		if c.code != "" {
			if r.code != c.code {
				t.Errorf("call %d: error %q, want %q", i, r.code, c.code)
			}
			continue
		}
		if r.code != "" || r.liked != c.liked || r.count != c.count {
			t.Errorf("call %d: %+v, want liked %v count %d", i, r, c.liked, c.count)
		}
	}
	if n := counter(t, reg, "guidepost_likes_batch_fallbacks_total"); n != 1 {
		t.Errorf("%v fallbacks, want 1 (the deleted user)", n)
	}
	for g, want := range map[string]int{a: 2, b: 1} {
		rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, g)
		st, _ := store.Guide(ctx, g, "")
		if rows != want || st.LikeCount != int64(want) {
			t.Errorf("guide %s: %d rows, count %d, want %d", g, rows, st.LikeCount, want)
		}
	}
}

// A like, an unlike and a like again of one pair in one batch: three
// answers in order, one row and one count at the end.
func TestBatchKeepsAPairsOrder(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	batching(t, store, gsql.LikeBatchOptions{Committers: 1, Window: 150 * time.Millisecond})
	author := guideUser(t, db)
	g, u := guideRow(t, store, author, 37.5, 127.0), guideUser(t, db)
	var wg sync.WaitGroup
	got := make([]bool, 3)
	for i := range 3 {
		wg.Go(func() {
			var err error
			if i == 1 {
				st, e := store.Unlike(ctx, g, guides.Liker{UserID: u}, time.Now())
				got[i], err = st.Liked, e
			} else {
				st, e := store.Like(ctx, g, guides.Liker{UserID: u}, time.Now())
				got[i], err = st.Liked, e
			}
			if err != nil {
				t.Error(err)
			}
		})
		time.Sleep(30 * time.Millisecond)
	}
	wg.Wait()
	if !slices.Equal(got, []bool{true, false, true}) {
		t.Errorf("answers %v", got)
	}
	st, _ := store.Guide(ctx, g, u)
	if rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, g); rows != 1 || st.LikeCount != 1 || !st.LikedByMe {
		t.Errorf("%d rows, %+v", rows, st)
	}
}

func TestLikeRounds(t *testing.T) {
	for _, tc := range []struct {
		reqs [][3]string
		want string
	}{
		{[][3]string{{"like", "g", "u"}, {"like", "g", "u"}, {"like", "g", "v"}}, "[[0 1 2]]"},
		{[][3]string{{"like", "g", "u"}, {"unlike", "g", "u"}, {"like", "g", "v"}, {"like", "g", "u"}}, "[[0 2] [1] [3]]"},
		{[][3]string{{"unlike", "g", "u"}, {"unlike", "g", "u"}, {"like", "h", "u"}}, "[[0 1 2]]"},
	} {
		if got := fmt.Sprint(gsql.LikeRounds(tc.reqs)); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.reqs, got, tc.want)
		}
	}
}

// Stop answers what was queued; afterwards likes are written one at a time.
func TestStopLikeBatchingAnswersEveryRequest(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	if err := store.StartLikeBatching(gsql.LikeBatchOptions{Window: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	author := guideUser(t, db)
	g := guideRow(t, store, author, 37.5, 127.0)
	users := make([]string, 50)
	for i := range users {
		users[i] = guideUser(t, db)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for _, u := range users {
		wg.Go(func() {
			_, err := store.Like(ctx, g, guides.Liker{UserID: u}, time.Now())
			switch code := guidepost.ErrorCode(err); {
			case err == nil:
				mu.Lock()
				ok++
				mu.Unlock()
			case code != guidepost.EUNAVAILABLE:
				t.Error(err)
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	store.StopLikeBatching()
	store.StopLikeBatching()
	wg.Wait()
	if rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, g); rows != ok {
		t.Errorf("%d rows, %d acknowledged", rows, ok)
	}
	if st, err := store.Like(ctx, g, guides.Liker{UserID: author}, time.Now()); err != nil || st.LikeCount != int64(ok+1) {
		t.Errorf("after stop: %+v %v", st, err)
	}
}

// A like from a user the author blocks is refused inside the batch's own
// statement (no fallback, no read before it): the others in the batch are
// written and counted, the refused one is not.
func TestBatchRefusesLikesTheAuthorBlocks(t *testing.T) {
	ctx := context.Background()
	db, store, reg, author := oneCommitter(t, 500*time.Millisecond) // room for a loaded machine: one batch
	g := guideRow(t, store, author, 37.5, 127.0)
	u1, u2, shunned := guideUser(t, db), guideUser(t, db), guideUser(t, db)
	if _, err := block(t, gsql.NewBlocks(db), author, shunned, 10); err != nil {
		t.Fatal(err)
	}
	users := []string{u1, shunned, shunned, u2}
	codes := make([]string, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Go(func() {
			_, err := store.Like(ctx, g, guides.Liker{UserID: u}, time.Now())
			codes[i] = guidepost.ErrorCode(err)
		})
	}
	wg.Wait()
	if want := []string{"", guidepost.EFORBIDDEN, guidepost.EFORBIDDEN, ""}; !slices.Equal(codes, want) {
		t.Errorf("answers %q, want %q", codes, want)
	}
	if n, _ := histogram(t, reg, "guidepost_likes_batch_size"); n != 1 {
		t.Errorf("%d batches, want 1", n)
	}
	if n := counter(t, reg, "guidepost_likes_batch_fallbacks_total"); n != 0 {
		t.Errorf("%v fallbacks, want 0", n)
	}
	if st, err := store.Unlike(ctx, g, guides.Liker{UserID: shunned}, time.Now()); err != nil || st.LikeCount != 2 {
		t.Errorf("an unlike stays allowed: %+v, %v", st, err)
	}
	st, _ := store.Guide(ctx, g, shunned)
	if rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, g); rows != 2 || st.LikeCount != 2 || st.LikedByMe {
		t.Errorf("%d rows, %+v", rows, st)
	}
}

// A user's requests are written by one committer, in the order they were
// queued, even when they fall in two batches: here the like's batch
// waits on a lock of the user's row, and the unlike sent meanwhile must
// wait for it, not be written by another committer first (which deleted
// nothing, and the like then stayed). With one shared queue, two batches
// of a double tap were also written at once, the later waiting on the
// earlier's commit inside PostgreSQL.
func TestBatchesKeepAUsersOrderAcrossCommitters(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	batching(t, store, gsql.LikeBatchOptions{Committers: 4})
	author := guideUser(t, db)
	g, u := guideRow(t, store, author, 37.5, 127.0), guideUser(t, db)
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, u); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		liked bool
		err   error
	}
	liked, unliked := make(chan answer, 1), make(chan answer, 1)
	go func() {
		st, err := store.Like(ctx, g, guides.Liker{UserID: u}, time.Now())
		liked <- answer{st.Liked, err}
	}()
	waitForLockWait(t, db) // the like's batch is written and blocked
	go func() {
		st, err := store.Unlike(ctx, g, guides.Liker{UserID: u}, time.Now())
		unliked <- answer{st.Liked, err}
	}()
	// Give a wrong committer time to write the unlike; the right one
	// cannot answer it before the lock is released.
	select {
	case a := <-unliked:
		t.Errorf("the unlike was answered (%+v) while its user's earlier like was still being written", a)
		unliked <- a
	case <-time.After(time.Second):
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if a := <-liked; a.err != nil || !a.liked {
		t.Errorf("like: %+v", a)
	}
	if a := <-unliked; a.err != nil || a.liked {
		t.Errorf("unlike: %+v", a)
	}
	st, _ := store.Guide(ctx, g, u)
	if rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, g); rows != 0 || st.LikeCount != 0 || st.LikedByMe {
		t.Errorf("after like then unlike: %d rows, %+v", rows, st)
	}
}

// waitForLockWait returns once a session of db's database waits on a
// heavyweight lock.
func waitForLockWait(t *testing.T, db *gsql.DB) {
	t.Helper()
	for range 1000 {
		var n int
		if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no session waited on the lock")
}

// Each committer bumps a counter shard of its own, so two batches written
// at once never wait on each other's shard row.
func TestCommittersBumpShardsOfTheirOwn(t *testing.T) {
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	batching(t, store, gsql.LikeBatchOptions{Committers: 2, Window: 5 * time.Millisecond})
	likeStormIsExact(t, db, store)
	if n := countRows(t, db, `SELECT count(DISTINCT shard) FROM guide_like_shards WHERE shard >= 2`); n != 0 {
		t.Errorf("2 committers bumped %d shards beyond their own", n)
	}
}
