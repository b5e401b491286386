package sql_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

// likeRows is what a guide's count must be: its like rows.
func likeRows(t *testing.T, db *gsql.DB, guide string) int64 {
	return int64(countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, guide))
}

// An account marked deleted gets no like, photo or upload, however it is
// written (one statement, a group commit), so the purge that follows has
// nothing left behind it.
func TestNothingIsAddedToAnAccountMarkedDeleted(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	g := gsql.NewGuides(db)
	leaving, staying, author := newUser(t, db), newUser(t, db), newUser(t, db)
	guide := guideRow(t, g, author, 37.5, 127)
	if err := gsql.NewAccounts(db).MarkDeleted(ctx, leaving, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Like(ctx, guide, guides.Liker{UserID: leaving}, t0); guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
		t.Fatalf("a like by a deleted account: %v", err)
	}
	batched := gsql.NewGuides(db)
	batching(t, batched, gsql.LikeBatchOptions{Window: 20 * time.Millisecond})
	var wg sync.WaitGroup
	var errLeaving, errStaying error
	var st guides.LikeState
	wg.Go(func() { _, errLeaving = batched.Like(ctx, guide, guides.Liker{UserID: leaving}, t0) })
	wg.Go(func() { st, errStaying = batched.Like(ctx, guide, guides.Liker{UserID: staying}, t0) })
	wg.Wait()
	if guidepost.ErrorCode(errLeaving) != guidepost.EUNAUTHORIZED || errStaying != nil || st.LikeCount != 1 {
		t.Fatalf("batched: deleted account %v; another %+v %v", errLeaving, st, errStaying)
	}
	if got, _ := g.Guide(ctx, guide, ""); got.LikeCount != 1 || likeRows(t, db, guide) != 1 {
		t.Fatalf("count %d, rows %d", got.LikeCount, likeRows(t, db, guide))
	}

	m := newMedia(leaving, "a")
	if err := gsql.NewMedia(db).Create(ctx, m, nil); guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
		t.Fatalf("a photo for a deleted account: %v", err)
	}
	u := media.Upload{ID: uuid.Must(uuid.NewV7()).String(), OwnerID: leaving, MediaID: m.ID, Key: "k", StoreID: "s",
		Bytes: 1, SHA256: "a", Type: "image/jpeg", PartSize: 1, State: media.UploadOpen, Created: t0, Updated: t0, Expires: t0.Add(time.Hour)}
	err := gsql.NewUploads(db).CreateUpload(ctx, u, t0, func(media.UploadCounts) error { return nil })
	if guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
		t.Fatalf("an upload for a deleted account: %v", err)
	}
}

// A like already past its session check when the account is being marked
// deleted: the mark waits for it, or it waits for the mark and adds
// nothing. Either way the purge that follows leaves every count exact.
// Here the mark is held open (its transaction not committed) while the
// like runs.
func TestLikeRacingTheAccountsDeletionLeavesCountsExact(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	g := gsql.NewGuides(db)
	a := gsql.NewAccounts(db)
	leaving, author := newUser(t, db), newUser(t, db)
	guide := guideRow(t, g, author, 37.5, 127)

	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE users SET deleted_at = $2 WHERE id = $1`, leaving, t0); err != nil {
		t.Fatal(err)
	}
	var likeErr error
	var wg sync.WaitGroup
	wg.Go(func() { _, likeErr = g.Like(ctx, guide, guides.Liker{UserID: leaving}, t0) })
	time.Sleep(200 * time.Millisecond) // let the like reach the lock (it is refused either way)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if guidepost.ErrorCode(likeErr) != guidepost.EUNAUTHORIZED || likeRows(t, db, guide) != 0 {
		t.Fatalf("a like racing the mark: %v, %d rows", likeErr, likeRows(t, db, guide))
	}

	// The whole purge with likes pouring in from the leaving account and
	// another: every count equals its rows at the end.
	leaving, staying := newUser(t, db), newUser(t, db)
	ids := []string{guideRow(t, g, author, 37.5, 127.01), guideRow(t, g, author, 37.5, 127.02)}
	stop := make(chan struct{})
	for _, user := range []string{leaving, staying} {
		for _, id := range ids {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					g.Like(ctx, id, guides.Liker{UserID: user}, t0)
					g.Unlike(ctx, id, guides.Liker{UserID: user}, time.Now())
					g.Like(ctx, id, guides.Liker{UserID: user}, t0)
				}
			})
		}
	}
	time.Sleep(100 * time.Millisecond)
	if err := a.MarkDeleted(ctx, leaving, t0); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func(context.Context, string) error{a.RemoveLikes, a.RemoveGuides, a.RemoveUser} {
		if err := step(ctx, leaving); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	for _, id := range ids {
		got, err := g.Guide(ctx, id, "")
		if err != nil || got.LikeCount != likeRows(t, db, id) || got.LikeCount != 1 {
			t.Fatalf("guide %s: count %d, rows %d (%v)", id, got.LikeCount, likeRows(t, db, id), err)
		}
	}
}
