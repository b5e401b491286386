package api_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/ratelimit"
	gsql "github.com/guidepost/guidepost/sql"
)

// queryCounter counts the statements a pool sends: its round trips.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	return ctx
}

func (q *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// likeStack is the full stack with likes group-committed on one
// committer whose batches wait window to fill, its users and guides read
// and written through a pool whose statements are counted.
func likeStack(t *testing.T, window time.Duration) (*fullStack, *queryCounter) {
	return likeStackWith(t, window, nil)
}

// likeStackWith is likeStack with tune's changes to the server.
func likeStackWith(t *testing.T, window time.Duration, tune func(*testServer)) (*fullStack, *queryCounter) {
	q := &queryCounter{}
	f := newFullStackWith(t, func(ts *testServer, db *gsql.DB) {
		cfg, err := pgxpool.ParseConfig(db.Pool.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.Tracer = q
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		traced := &gsql.DB{Pool: pool}
		store := gsql.NewGuides(traced)
		if err := store.StartLikeBatching(gsql.LikeBatchOptions{Committers: 1, Window: window}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(store.StopLikeBatching)
		ts.AuthDeps.Store, ts.GuideDeps.Store = gsql.NewUsers(traced), store
		if tune != nil {
			tune(ts)
		}
	})
	return f, q
}

// guideToLike is a guide of a new account, and a guest's token.
func guideToLike(f *fullStack) (guide, guest string) {
	_, author := f.signup("author@example.com")
	guide = f.doRaw("POST", "/v1/guides", author, "application/json",
		strings.NewReader(`{"title":"t","lat":37.5,"lng":127}`), 201)["id"].(string)
	return guide, f.doRaw("POST", "/v1/auth/guest", "", "", nil, 201)["access_token"].(string)
}

// A like is one round trip to PostgreSQL, its group commit, which also
// checks the session: no session check of its own ahead of it.
func TestALikeIsOneRoundTrip(t *testing.T) {
	f, q := likeStack(t, time.Millisecond)
	guide, guest := guideToLike(f)
	for _, method := range []string{"PUT", "DELETE"} {
		before := q.n.Load()
		f.doRaw(method, "/v1/guides/"+guide+"/like", guest, "", nil, 200)
		if n := q.n.Load() - before; n != 1 {
			t.Errorf("%s like: %d statements, want 1", method, n)
		}
	}
}

// Guests like at once, double-tapping, half of them signed out just
// before: within the same batches, a signed-out guest's like is answered
// 401 (invalid_token) and written nowhere; the others' are counted.
func TestLikesOfEndedSessionsAreRefusedInTheirBatch(t *testing.T) {
	f, _ := likeStack(t, 100*time.Millisecond)
	guide, _ := guideToLike(f)
	const guests = 10
	tokens := make([]string, guests)
	for i := range tokens {
		tokens[i] = f.doRaw("POST", "/v1/auth/guest", "", "", nil, 201)["access_token"].(string)
		if i%2 == 1 {
			if status, _, raw := f.send("POST", "/v1/auth/logout", tokens[i], "", nil); status != 204 {
				t.Fatalf("logout: %d %s", status, raw)
			}
		}
	}
	type answer struct {
		status    int
		challenge string
	}
	answers := make([]answer, 2*guests)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			req, _ := http.NewRequest("PUT", f.srv.URL+"/v1/guides/"+guide+"/like", nil)
			req.Header.Set("Authorization", "Bearer "+tokens[i/2])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			answers[i] = answer{resp.StatusCode, resp.Header.Get("WWW-Authenticate")}
		})
	}
	wg.Wait()
	for i, a := range answers {
		signedOut := (i/2)%2 == 1
		switch {
		case signedOut && (a.status != 401 || !strings.Contains(a.challenge, `error="invalid_token"`)):
			t.Errorf("tap %d of a signed-out guest: %d %q, want 401 invalid_token", i, a.status, a.challenge)
		case !signedOut && a.status != 200:
			t.Errorf("tap %d of a signed-in guest: %d", i, a.status)
		}
	}
	var rows int
	if err := f.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, guide).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != guests/2 {
		t.Errorf("%d likes written, want %d", rows, guests/2)
	}
}

// A like spends its account's like budget before its write finds the
// session signed out; refused 401, it gives the event back: a token of an
// ended session, still unexpired, cannot drain its account's likes.
func TestLikesOfEndedSessionsSpendNoBudget(t *testing.T) {
	rl, like := (*ratelimit.Redis)(nil), guidepost.Rate{Name: "like", Count: 3, Period: time.Hour}
	f, _ := likeStackWith(t, time.Millisecond, func(ts *testServer) {
		rl = limiter(t)
		ts.Limiter, ts.Rates.Like = rl, like
	})
	guide, _ := guideToLike(f)
	guest := f.doRaw("POST", "/v1/auth/guest", "", "", nil, 201)
	token, user := guest["access_token"].(string), guest["user"].(map[string]any)["id"].(string)
	f.doRaw("PUT", "/v1/guides/"+guide+"/like", token, "", nil, 200)
	if status, _, raw := f.send("POST", "/v1/auth/logout", token, "", nil); status != 204 {
		t.Fatalf("logout: %d %s", status, raw)
	}
	for i := range 2 * like.Count {
		if status, _, raw := f.send("DELETE", "/v1/guides/"+guide+"/like", token, "", nil); status != 401 {
			t.Fatalf("unlike %d after logout: %d %s", i, status, raw)
		}
	}
	if left := rl.Take(context.Background(), user, like, 0).Remaining; left != like.Count-1 {
		t.Errorf("%d likes left of %d after one like and refused ones, want %d", left, like.Count, like.Count-1)
	}
}
