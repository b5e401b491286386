package sql_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// accountBatching starts group-committed accounts on one committer.
func accountBatching(t *testing.T, db *gsql.DB) (*gsql.Users, *prometheus.Registry) {
	t.Helper()
	users := gsql.NewUsers(db)
	reg := prometheus.NewRegistry()
	if err := users.StartAccountBatching(gsql.AccountBatchOptions{Committers: 1, Registerer: reg}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(users.StopAccountBatching)
	return users, reg
}

// holdCommitter makes the committer's next batch wait on a table lock, so
// that the accounts sent meanwhile queue up behind it; release lets it go.
func holdCommitter(t *testing.T, db *gsql.DB, users *gsql.Users) (first chan error, release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE refresh_tokens IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	first = make(chan error, 1)
	go func() { first <- createAccount(ctx, users, "") }()
	waitForLockWait(t, db)
	var once sync.Once
	release = func() { once.Do(func() { tx.Rollback(ctx) }) }
	t.Cleanup(release)
	return first, release
}

func createAccount(ctx context.Context, users *gsql.Users, email string) error {
	now := time.Now().UTC().Truncate(time.Microsecond)
	u := auth.User{ID: uuid.NewString(), DisplayName: "a", Guest: email == "", Email: email, CreatedAt: now}
	if email != "" {
		u.PasswordHash = "x"
	}
	s := auth.SessionRow{ID: uuid.NewString(), UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	return users.CreateAccount(ctx, u, s, []byte(s.ID))
}

// sendAll creates one account per email at once, each in its own
// goroutine, and returns once every one has been handed to the store and
// the answers as a function that waits for them.
func sendAll(ctx context.Context, users *gsql.Users, emails []string) (wait func() []error) {
	errs := make([]error, len(emails))
	var started, done sync.WaitGroup
	for i, e := range emails {
		started.Add(1)
		done.Go(func() {
			started.Done()
			errs[i] = createAccount(ctx, users, e)
		})
	}
	started.Wait()
	return func() []error { done.Wait(); return errs }
}

// Accounts created at once are written by one transaction, each whole:
// its user, session and refresh token.
func TestBatchedAccountsShareACommit(t *testing.T) {
	db := testkit.DB(t)
	users, reg := accountBatching(t, db)
	first, release := holdCommitter(t, db, users)
	wait := sendAll(context.Background(), users, make([]string, 20))
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, err := range wait() {
		if err != nil {
			t.Errorf("account %d: %v", i, err)
		}
	}
	var accounts, whole, commits int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*), count(r.hash), count(DISTINCT u.xmin::text)
		FROM users u LEFT JOIN sessions s ON s.user_id = u.id LEFT JOIN refresh_tokens r ON r.session_id = s.id AND r.hash = s.id::text::bytea`).
		Scan(&accounts, &whole, &commits); err != nil {
		t.Fatal(err)
	}
	if accounts != 21 || whole != 21 {
		t.Errorf("%d accounts, %d with their session and refresh token, want 21", accounts, whole)
	}
	if batches, _ := histogram(t, reg, "guidepost_accounts_batch_size"); commits >= accounts || int(batches) != commits {
		t.Errorf("21 accounts in %d transactions, %d batches", commits, batches)
	}
}

// A taken email, or two sign-ups for one email in a batch, fail only
// their own: the batch is written again account by account.
func TestATakenEmailFailsOnlyItsOwnAccount(t *testing.T) {
	db := testkit.DB(t)
	users, reg := accountBatching(t, db)
	if err := createAccount(context.Background(), users, "taken@example.com"); err != nil {
		t.Fatal(err)
	}
	first, release := holdCommitter(t, db, users)
	emails := []string{"", "taken@example.com", "", "twice@example.com", "", "twice@example.com", ""}
	wait := sendAll(context.Background(), users, emails)
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	errs := wait()
	conflicts := map[string]int{}
	for i, err := range errs {
		switch code := guidepost.ErrorCode(err); {
		case code == guidepost.ECONFLICT && emails[i] != "":
			conflicts[emails[i]]++
		case err != nil:
			t.Errorf("account %d (%q): %v", i, emails[i], err)
		}
	}
	if conflicts["taken@example.com"] != 1 || conflicts["twice@example.com"] != 1 {
		t.Errorf("conflicts %v, want one for each email", conflicts)
	}
	if n := countRows(t, db, `SELECT count(*) FROM users u JOIN sessions s ON s.user_id = u.id`); n != 1+1+len(emails)-2 {
		t.Errorf("%d accounts with a session", n)
	}
	if n := counter(t, reg, "guidepost_accounts_batch_fallbacks_total"); n != 1 {
		t.Errorf("%v fallbacks, want 1", n)
	}
}

// A caller that gives up while its account is queued gets its context's
// error at once; Stop still answers every account queued.
func TestAccountBatchingHonoursCancelAndStop(t *testing.T) {
	db := testkit.DB(t)
	users, _ := accountBatching(t, db)
	first, release := holdCommitter(t, db, users)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := sendAll(ctx, users, []string{""})
	wait := sendAll(context.Background(), users, make([]string, 5))
	cancel()
	if errs := gaveUp(); !errors.Is(errs[0], context.Canceled) {
		t.Errorf("cancelled: %v", errs[0])
	}
	stopped := make(chan struct{})
	go func() { users.StopAccountBatching(); close(stopped) }()
	release()
	<-stopped
	if err := <-first; err != nil {
		t.Error(err)
	}
	for i, err := range wait() {
		if err != nil {
			t.Errorf("account %d: %v", i, err)
		}
	}
	if err := createAccount(context.Background(), users, ""); err != nil {
		t.Errorf("after stop: %v", err)
	}
}
