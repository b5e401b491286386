package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// A refresh whose answer was lost is retried with the same token: within
// the grace it gets a working pair and the session lives on; the pair of
// the lost answer works too. After the grace the same token is a theft.
func TestRefreshRetriedWithinTheGraceGetsAWorkingPair(t *testing.T) {
	svc, clock := newServiceWith(t, func(_ *auth.Deps, c *auth.Config) { c.Sessions = auth.SessionPolicy{Grace: 10 * time.Second} })
	ctx := context.Background()
	first := guest(t, svc)
	lost, err := svc.Refresh(ctx, first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	clock.Add(9 * time.Second)
	retried, err := svc.Refresh(ctx, first.RefreshToken)
	if err != nil {
		t.Fatalf("retry within the grace: %v", err)
	}
	for name, s := range map[string]auth.Session{"retried": retried, "lost": lost} {
		if _, err := svc.Authenticate(ctx, s.AccessToken); err != nil {
			t.Fatalf("the %s pair's access token: %v", name, err)
		}
	}
	next, err := svc.Refresh(ctx, retried.RefreshToken)
	if err != nil {
		t.Fatalf("the retried pair's refresh token: %v", err)
	}
	clock.Add(2 * time.Second) // 11 s after the first use
	_, err = svc.Refresh(ctx, first.RefreshToken)
	wantUnauthorized(t, err, "the first token after the grace")
	_, err = svc.Authenticate(ctx, next.AccessToken)
	wantUnauthorized(t, err, "the session after a reuse past the grace")
}

// A session ends REFRESH_TTL after its last use, not after it began, and
// at most MaxAge after it began however often it is used.
func TestSessionsEndAfterLastUseUpToTheirCeiling(t *testing.T) {
	const day = 24 * time.Hour
	svc, clock := newServiceWith(t, func(_ *auth.Deps, c *auth.Config) { c.Sessions = auth.SessionPolicy{TTL: 30 * day, MaxAge: 70 * day} })
	ctx := context.Background()
	s := guest(t, svc)
	var err error
	for i := range 3 { // days 20, 40, 60: each within 30 days of the last use
		clock.Add(20 * day)
		if s, err = svc.Refresh(ctx, s.RefreshToken); err != nil {
			t.Fatalf("refresh on day %d: %v", 20*(i+1), err)
		}
		want := min(30*day, time.Duration(70-20*(i+1))*day)
		if s.RefreshExpiresIn != want {
			t.Fatalf("day %d: the session ends in %s, want %s", 20*(i+1), s.RefreshExpiresIn, want)
		}
	}
	clock.Add(10*day + time.Second) // day 70: the ceiling
	_, err = svc.Refresh(ctx, s.RefreshToken)
	wantUnauthorized(t, err, "a refresh past the ceiling")
}

// A token that names no session could never be revoked: refused, even
// with a valid signature for a live account.
func TestTokensWithoutASessionAreRefused(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sess := guest(t, f.svc)
	bare, err := f.tokens.Issue(sess.User.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Authenticate(ctx, bare)
	wantUnauthorized(t, err, "a token without a session")
	f.clock.Add(2 * time.Hour)
	if _, err := f.svc.Authenticate(ctx, bare); guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
		t.Fatalf("an expired token without a session: %v, want unauthorized (not token_expired: refreshing cannot help)", err)
	}
}

// Upgrading a guest ends every other session of it (a copy of a guest
// token must not open an account that now has a password); the upgrading
// session and the new one work.
func TestUpgradeEndsTheGuestsOtherSessions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	phone := guest(t, f.svc)
	caller, err := f.svc.Authenticate(ctx, phone.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	copied := uuid.Must(uuid.NewV7()).String()
	now := f.clock.Now().UTC()
	if err := f.users.CreateSession(ctx, auth.SessionRow{ID: copied, UserID: caller.UserID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, []byte("other")); err != nil {
		t.Fatal(err)
	}
	other, _ := f.tokens.Issue(caller.UserID, copied)
	if _, err := f.svc.Authenticate(ctx, other); err != nil {
		t.Fatalf("the other session before the upgrade: %v", err)
	}
	full, err := f.svc.Upgrade(ctx, caller, auth.SignupInput{Email: "up@example.com", Password: "password1", DisplayName: "Up"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Authenticate(ctx, other)
	wantUnauthorized(t, err, "another session of the guest after its upgrade")
	for name, tok := range map[string]string{"upgrading": phone.AccessToken, "new": full.AccessToken} {
		if _, err := f.svc.Authenticate(ctx, tok); err != nil {
			t.Fatalf("the %s session after the upgrade: %v", name, err)
		}
	}
}
