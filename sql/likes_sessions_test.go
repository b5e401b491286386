package sql_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// sessionFor opens a session of user that ends at expires.
func sessionFor(t *testing.T, db *gsql.DB, user string, expires time.Time) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	row := auth.SessionRow{ID: id, UserID: user, CreatedAt: time.Now().Add(-time.Hour), ExpiresAt: expires}
	if err := gsql.NewUsers(db).CreateSession(context.Background(), row, []byte(id)); err != nil {
		t.Fatal(err)
	}
	return id
}

// likeCall is a like or an unlike with the session it came with, and the
// error code it must be answered with.
type likeCall struct {
	like  bool
	guide string
	by    guides.Liker
	code  string
}

// sessionCalls are likes and unlikes from live and ended sessions of the
// same users, the same pairs and a missing guide, and the guide they
// like: a revoked session's like of it must leave exactly u1's and u3's.
func sessionCalls(t *testing.T, db *gsql.DB, store *gsql.Guides) (g string, calls []likeCall) {
	ctx := context.Background()
	author := guideUser(t, db)
	g = guideRow(t, store, author, 37.5, 127.0)
	later, earlier := time.Now().Add(time.Hour), time.Now().Add(-time.Minute)
	u1, u2, u3 := guideUser(t, db), guideUser(t, db), guideUser(t, db)
	live1, revoked1, expired2, live3 := sessionFor(t, db, u1, later), sessionFor(t, db, u1, later), sessionFor(t, db, u2, earlier), sessionFor(t, db, u3, later)
	if err := gsql.NewUsers(db).RevokeSession(ctx, revoked1, time.Now()); err != nil {
		t.Fatal(err)
	}
	// u3 liked g before; its unlike from a session it does not own must not remove it.
	if _, err := store.Like(ctx, g, guides.Liker{UserID: u3}, time.Now()); err != nil {
		t.Fatal(err)
	}
	return g, []likeCall{
		{like: true, guide: g, by: guides.Liker{UserID: u1, SessionID: live1}},
		{like: true, guide: g, by: guides.Liker{UserID: u1, SessionID: revoked1}, code: guidepost.EUNAUTHORIZED}, // same pair, ended session
		{like: true, guide: g, by: guides.Liker{UserID: u2, SessionID: expired2}, code: guidepost.EUNAUTHORIZED},
		{like: true, guide: g, by: guides.Liker{UserID: u2, SessionID: live1}, code: guidepost.EUNAUTHORIZED}, // another user's session
		{like: true, guide: uuid.NewString(), by: guides.Liker{UserID: u1, SessionID: revoked1}, code: guidepost.EUNAUTHORIZED},
		{like: false, guide: g, by: guides.Liker{UserID: u3, SessionID: live1}, code: guidepost.EUNAUTHORIZED},
		{like: true, guide: g, by: guides.Liker{UserID: u3, SessionID: live3}},
	}
}

// runCalls sends every call at once and returns the error codes, in order.
func runCalls(store *gsql.Guides, calls []likeCall) []string {
	codes := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			var err error
			if c.like {
				_, err = store.Like(context.Background(), c.guide, c.by, time.Now())
			} else {
				_, err = store.Unlike(context.Background(), c.guide, c.by, time.Now())
			}
			codes[i] = guidepost.ErrorCode(err)
		})
	}
	wg.Wait()
	return codes
}

func checkSessionCalls(t *testing.T, db *gsql.DB, store *gsql.Guides, g string, calls []likeCall, codes []string) {
	t.Helper()
	want := make([]string, len(calls))
	for i, c := range calls {
		want[i] = c.code
	}
	if !slices.Equal(codes, want) {
		t.Errorf("answers %q, want %q", codes, want)
	}
	st, _ := store.Guide(context.Background(), g, "")
	if rows := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, g); rows != 2 || st.LikeCount != 2 {
		t.Errorf("%d rows, count %d; want u1's and u3's only", rows, st.LikeCount)
	}
}

// A like's session is checked by the batch statement that writes it: a
// session revoked, expired or of another user is answered 401 and writes
// nothing, in the same batch as live ones, with no fallback (no second
// statement) and no session check ahead of the commit.
func TestBatchChecksEachLikesSession(t *testing.T) {
	db, store, reg, _ := oneCommitter(t, 500*time.Millisecond) // room for a loaded machine: one batch
	g, calls := sessionCalls(t, db, store)
	_, before := histogram(t, reg, "guidepost_likes_batch_size")
	codes := runCalls(store, calls)
	checkSessionCalls(t, db, store, g, calls, codes)
	if n, sum := histogram(t, reg, "guidepost_likes_batch_size"); n != 2 || sum-before != float64(len(calls)) {
		t.Errorf("%d batches of %v requests; want the calls in one batch after the setup's", n, sum-before)
	}
	if n := counter(t, reg, "guidepost_likes_batch_fallbacks_total"); n != 0 {
		t.Errorf("%v fallbacks, want 0", n)
	}
}

// Without batching, a like alone checks its session the same way.
func TestLikeAloneChecksItsSession(t *testing.T) {
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	g, calls := sessionCalls(t, db, store)
	checkSessionCalls(t, db, store, g, calls, runCalls(store, calls))
}
