package auth_test

import (
	"context"
	"sync"
	"testing"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// A new account, its session and its refresh token are written by one
// transaction (one commit, one WAL flush), by every sign-up of a storm at
// once; two sign-ups racing for one email get one account, and the loser
// leaves nothing behind, not even a session.
func TestEachNewAccountIsOneCommit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	sessions := make([]auth.Session, 16)
	errs := make([]error, len(sessions))
	for i := range sessions {
		wg.Go(func() {
			if i < 2 { // two sign-ups racing for one email
				sessions[i], errs[i] = f.svc.Signup(ctx, auth.SignupInput{Email: "race@example.com", Password: "correct horse", DisplayName: "R"})
				return
			}
			sessions[i], errs[i] = f.svc.Guest(ctx)
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case i < 2 && guidepost.ErrorCode(err) == guidepost.ECONFLICT:
			continue
		case err != nil:
			t.Fatalf("sign-up %d: %v", i, err)
		}
		if i < 2 {
			won++
		}
		s := sessions[i]
		if c, err := f.svc.Authenticate(ctx, s.AccessToken); err != nil || c.UserID != s.User.ID {
			t.Errorf("sign-up %d: its token authenticates %+v, %v", i, c, err)
		}
		var sameTx bool
		if err := f.db.Pool.QueryRow(ctx, `SELECT u.xmin = s.xmin AND s.xmin = r.xmin
			FROM users u JOIN sessions s ON s.user_id = u.id JOIN refresh_tokens r ON r.session_id = s.id
			WHERE u.id = $1`, s.User.ID).Scan(&sameTx); err != nil {
			t.Fatal(err)
		}
		if !sameTx {
			t.Errorf("sign-up %d: account, session and refresh token written by separate transactions", i)
		}
	}
	if won != 1 {
		t.Errorf("%d sign-ups won the email, want 1", won)
	}
	var accounts, orphans int
	if err := f.db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM users),
		(SELECT count(*) FROM users u WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id))`).Scan(&accounts, &orphans); err != nil {
		t.Fatal(err)
	}
	if want := len(sessions) - 1; accounts != want || orphans != 0 {
		t.Errorf("%d accounts (%d without a session), want %d", accounts, orphans, want)
	}
}
