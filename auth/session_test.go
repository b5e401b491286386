package auth_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

func wantUnauthorized(t *testing.T, err error, what string) {
	t.Helper()
	if guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
		t.Fatalf("%s: want unauthorized, got %v", what, err)
	}
}

// A refresh token works once: it yields a new access token and the next
// refresh token. Using a spent one again after the grace means it leaked,
// and ends the session for everyone holding any of its tokens.
func TestRefreshRotatesAndReuseRevokesTheSession(t *testing.T) {
	svc, clock := newService(t)
	ctx := context.Background()
	first, err := svc.Guest(ctx)
	if err != nil || first.RefreshToken == "" || first.RefreshExpiresIn <= 0 {
		t.Fatalf("guest: %+v, %v", first, err)
	}
	second, err := svc.Refresh(ctx, first.RefreshToken)
	if err != nil || second.User.ID != first.User.ID || second.RefreshToken == first.RefreshToken {
		t.Fatalf("refresh: %+v, %v", second, err)
	}
	if _, err := svc.Authenticate(ctx, second.AccessToken); err != nil {
		t.Fatal(err)
	}
	clock.Add(auth.DefaultConfig().Sessions.Grace + time.Second)
	_, err = svc.Refresh(ctx, first.RefreshToken)
	wantUnauthorized(t, err, "reuse")
	_, err = svc.Refresh(ctx, second.RefreshToken)
	wantUnauthorized(t, err, "the current token after a reuse")
	_, err = svc.Authenticate(ctx, second.AccessToken)
	wantUnauthorized(t, err, "an access token of the revoked session")
	_, err = svc.Refresh(ctx, "gpr_nonsense")
	wantUnauthorized(t, err, "unknown token")
	_, err = svc.Refresh(ctx, second.AccessToken)
	wantUnauthorized(t, err, "an access token as refresh token")
}

// Refreshes racing with one token (an app's requests after a wake-up, or
// a retry while the first is still running) all get working pairs, and
// the session stays live: none of them counts as a theft.
func TestConcurrentRefreshesAllGetWorkingPairs(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	sess, err := svc.Guest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	pairs, errs := make([]auth.Session, 4), make([]error, 4)
	for i := range errs {
		wg.Go(func() { pairs[i], errs[i] = svc.Refresh(ctx, sess.RefreshToken) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("refresh %d of 4 at once: %v", i, err)
		}
		if seen[pairs[i].RefreshToken] {
			t.Fatalf("two refreshes got the same refresh token")
		}
		seen[pairs[i].RefreshToken] = true
	}
	for i, p := range pairs {
		if _, err := svc.Authenticate(ctx, p.AccessToken); err != nil {
			t.Fatalf("access token %d: %v", i, err)
		}
		if _, err := svc.Refresh(ctx, p.RefreshToken); err != nil {
			t.Fatalf("refresh token %d: %v", i, err)
		}
	}
}

func TestRefreshTokenExpiresWithItsSession(t *testing.T) {
	svc, clock := newService(t)
	ctx := context.Background()
	sess, err := svc.Guest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clock.Add(auth.DefaultConfig().Sessions.TTL + time.Second)
	_, err = svc.Refresh(ctx, sess.RefreshToken)
	wantUnauthorized(t, err, "expired session")
}

func TestLogoutRevokesOnlyThatSession(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	phone, err := svc.Signup(ctx, auth.SignupInput{Email: "dee@example.com", Password: "password1", DisplayName: "Dee"})
	if err != nil {
		t.Fatal(err)
	}
	laptop, err := svc.Login(ctx, auth.LoginInput{Email: "dee@example.com", Password: "password1"})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := svc.Authenticate(ctx, phone.AccessToken)
	if err != nil || caller.SessionID == "" {
		t.Fatalf("%+v, %v", caller, err)
	}
	if err := svc.Logout(ctx, caller); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Authenticate(ctx, phone.AccessToken)
	wantUnauthorized(t, err, "access token after logout")
	_, err = svc.Refresh(ctx, phone.RefreshToken)
	wantUnauthorized(t, err, "refresh token after logout")
	if _, err := svc.Authenticate(ctx, laptop.AccessToken); err != nil {
		t.Fatalf("the other session ended too: %v", err)
	}
}

func TestPasswordChangeRevokesEverySession(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	a, err := svc.Signup(ctx, auth.SignupInput{Email: "eve@example.com", Password: "password1", DisplayName: "Eve"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := svc.Login(ctx, auth.LoginInput{Email: "eve@example.com", Password: "password1"})
	_, err = svc.ChangePassword(ctx, auth.PasswordChange{UserID: a.User.ID, Current: "wrong-password", Next: "password2"})
	if guidepost.ErrorCode(err) != guidepost.EINVALID || guidepost.ErrorFields(err)[0].Field != "current_password" {
		t.Fatalf("wrong current password: %v", err)
	}
	fresh, err := svc.ChangePassword(ctx, auth.PasswordChange{UserID: a.User.ID, Current: "password1", Next: "password2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []auth.Session{a, b} {
		_, err := svc.Authenticate(ctx, s.AccessToken)
		wantUnauthorized(t, err, "old access token")
		_, err = svc.Refresh(ctx, s.RefreshToken)
		wantUnauthorized(t, err, "old refresh token")
	}
	if _, err := svc.Authenticate(ctx, fresh.AccessToken); err != nil {
		t.Fatalf("the new session: %v", err)
	}
	if _, err := svc.Login(ctx, auth.LoginInput{Email: "eve@example.com", Password: "password1"}); guidepost.ErrorCode(err) != guidepost.ECREDENTIALS {
		t.Fatalf("old password still works: %v", err)
	}
	if _, err := svc.Login(ctx, auth.LoginInput{Email: "eve@example.com", Password: "password2"}); err != nil {
		t.Fatal(err)
	}
}

// A guest becomes a full account in place: same id, can log in, and the
// email rules of sign-up hold.
func TestGuestUpgradesInPlace(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.Signup(ctx, auth.SignupInput{Email: "taken@example.com", Password: "password1", DisplayName: "T"}); err != nil {
		t.Fatal(err)
	}
	guest, err := svc.Guest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Upgrade(ctx, auth.Caller{UserID: guest.User.ID}, auth.SignupInput{Email: "TAKEN@example.com", Password: "password1", DisplayName: "G"})
	if guidepost.ErrorCode(err) != guidepost.ECONFLICT {
		t.Fatalf("taken email: %v", err)
	}
	full, err := svc.Upgrade(ctx, auth.Caller{UserID: guest.User.ID}, auth.SignupInput{Email: "fay@example.com", Password: "password1", DisplayName: "Fay"})
	if err != nil || full.User.ID != guest.User.ID || full.User.Guest || full.User.Email != "fay@example.com" {
		t.Fatalf("upgrade: %+v, %v", full.User, err)
	}
	login, err := svc.Login(ctx, auth.LoginInput{Email: "fay@example.com", Password: "password1"})
	if err != nil || login.User.ID != guest.User.ID {
		t.Fatalf("login after upgrade: %+v, %v", login.User, err)
	}
	_, err = svc.Upgrade(ctx, auth.Caller{UserID: guest.User.ID}, auth.SignupInput{Email: "fay2@example.com", Password: "password1", DisplayName: "Fay"})
	if guidepost.ErrorCode(err) != guidepost.ECONFLICT {
		t.Fatalf("second upgrade: %v", err)
	}
}

// BenchmarkAuthenticate measures what the session check adds to each
// authenticated request: the token's signature alone, then with the
// PostgreSQL lookup.
func BenchmarkAuthenticate(b *testing.B) {
	clock := &movableClock{}
	clock.now.Store(time.Now().UnixNano())
	tokens := auth.NewTokens(strings.Repeat("k", 32), time.Hour, clock)
	svc := auth.New(auth.Deps{Store: gsql.NewUsers(testkit.DB(b)), Tokens: tokens, Clock: clock}, auth.Config{Sessions: auth.DefaultConfig().Sessions})
	sess, err := svc.Guest(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("signature", func(b *testing.B) {
		for b.Loop() {
			if _, err := tokens.Verify(sess.AccessToken); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("signature+session", func(b *testing.B) {
		for b.Loop() {
			if _, err := svc.Authenticate(context.Background(), sess.AccessToken); err != nil {
				b.Fatal(err)
			}
		}
	})
}
