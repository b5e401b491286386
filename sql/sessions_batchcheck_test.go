package sql_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// sessionCase is a caller and whether its session is live.
type sessionCase struct {
	name string
	c    auth.Caller
	live bool
}

// sessionCases makes one session of each kind: live, revoked, expired, of
// a deleted account, presented with another user's id, unknown, and a
// token from before sessions (no session id).
func sessionCases(t *testing.T, db *gsql.DB, users *gsql.Users, now time.Time) []sessionCase {
	t.Helper()
	ctx := context.Background()
	session := func(user string, expires time.Time) string {
		id := uuid.Must(uuid.NewV7()).String()
		row := auth.SessionRow{ID: id, UserID: user, CreatedAt: now.Add(-time.Hour), ExpiresAt: expires}
		if err := users.CreateSession(ctx, row, []byte(id)); err != nil {
			t.Fatal(err)
		}
		return id
	}
	live, revoked, expired, gone, other := newUser(t, db), newUser(t, db), newUser(t, db), newUser(t, db), newUser(t, db)
	cases := []sessionCase{
		{"live", auth.Caller{UserID: live, SessionID: session(live, now.Add(time.Hour))}, true},
		{"revoked", auth.Caller{UserID: revoked, SessionID: session(revoked, now.Add(time.Hour))}, false},
		{"expired", auth.Caller{UserID: expired, SessionID: session(expired, now.Add(-time.Second))}, false},
		{"deleted account", auth.Caller{UserID: gone, SessionID: session(gone, now.Add(time.Hour))}, false},
		{"another user's session", auth.Caller{UserID: other, SessionID: session(live, now.Add(time.Hour))}, false},
		{"unknown session", auth.Caller{UserID: live, SessionID: uuid.Must(uuid.NewV7()).String()}, false},
		{"no session id", auth.Caller{UserID: live}, false},
	}
	if err := users.RevokeSession(ctx, cases[1].c.SessionID, now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := gsql.NewAccounts(db).MarkDeleted(ctx, gone, now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	return cases
}

func checking(t *testing.T, users *gsql.Users, opt gsql.SessionCheckOptions) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	opt.Registerer = reg
	if err := users.StartSessionChecks(opt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(users.StopSessionChecks)
	return reg
}

// Checks arriving together share queries and get the answers one query
// each would give.
func TestBatchedSessionChecksAnswerEachAsAlone(t *testing.T) {
	db := testkit.DB(t)
	users := gsql.NewUsers(db)
	now := time.Now()
	cases := sessionCases(t, db, users, now)
	for _, c := range cases { // one query each: the reference
		if live, err := users.SessionLive(context.Background(), c.c, now); err != nil || live != c.live {
			t.Fatalf("%s alone: live %v, %v; want %v", c.name, live, err, c.live)
		}
	}
	reg := checking(t, users, gsql.SessionCheckOptions{Readers: 2})
	if err := users.StartSessionChecks(gsql.SessionCheckOptions{}); err == nil {
		t.Error("started twice")
	}
	const n = 700
	got := make([]bool, n)
	errs := make([]error, n)
	picked := make([]int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		picked[i] = rand.IntN(len(cases))
		wg.Go(func() {
			<-start
			got[i], errs[i] = users.SessionLive(context.Background(), cases[picked[i]].c, now)
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if c := cases[picked[i]]; errs[i] != nil || got[i] != c.live {
			t.Fatalf("check %d (%s): live %v, %v; want %v", i, c.name, got[i], errs[i], c.live)
		}
	}
	batches, checks := histogram(t, reg, "guidepost_session_checks_batch_size")
	t.Logf("%.0f checks in %d queries", checks, batches)
	// Checks without a session id keep their own query; the others share.
	if checks < n/2 || float64(batches) > checks/4 {
		t.Errorf("%.0f checks in %d queries: not grouped", checks, batches)
	}
}

// A session revoked before a check is queued is seen revoked, and checks
// still work, one query each, once the readers have stopped.
func TestBatchedSessionCheckSeesARevocationAtOnce(t *testing.T) {
	db := testkit.DB(t)
	users := gsql.NewUsers(db)
	now := time.Now()
	live := sessionCases(t, db, users, now)[0].c
	checking(t, users, gsql.SessionCheckOptions{})
	ctx := context.Background()
	if ok, err := users.SessionLive(ctx, live, now); err != nil || !ok {
		t.Fatalf("before the revocation: %v, %v", ok, err)
	}
	if err := users.RevokeSession(ctx, live.SessionID, now); err != nil {
		t.Fatal(err)
	}
	if ok, err := users.SessionLive(ctx, live, now); err != nil || ok {
		t.Fatalf("right after the revocation: live %v, %v", ok, err)
	}
	users.StopSessionChecks()
	users.StopSessionChecks() // twice is fine
	if ok, err := users.SessionLive(ctx, live, now); err != nil || ok {
		t.Fatalf("after stopping: live %v, %v", ok, err)
	}
}
