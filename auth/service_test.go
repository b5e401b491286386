package auth_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// movableClock lets a test expire a token without sleeping.
type movableClock struct{ now atomic.Int64 }

func (c *movableClock) Now() time.Time      { return time.Unix(0, c.now.Load()) }
func (c *movableClock) Add(d time.Duration) { c.now.Add(int64(d)) }

func newService(t *testing.T) (*auth.Service, *movableClock) {
	return newServiceWith(t, nil)
}

// newServiceWith is newService with its deps and config tuned first.
func newServiceWith(t *testing.T, tune func(*auth.Deps, *auth.Config)) (*auth.Service, *movableClock) {
	f := newFixtureWith(t, tune)
	return f.svc, f.clock
}

// fixture is the service with what it was built on, for tests that also
// write to the store or sign tokens themselves.
type fixture struct {
	svc    *auth.Service
	clock  *movableClock
	users  *gsql.Users
	tokens *auth.Tokens
	db     *gsql.DB
}

// guest starts a guest account and its session.
func guest(t *testing.T, svc *auth.Service) auth.Session {
	t.Helper()
	s, err := svc.Guest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newFixture(t *testing.T) fixture { return newFixtureWith(t, nil) }

// newFixtureWith builds the service on the default sessions and no log-in
// limits, tuned by tune when set.
func newFixtureWith(t *testing.T, tune func(*auth.Deps, *auth.Config)) fixture {
	clock := &movableClock{}
	clock.now.Store(time.Now().UnixNano())
	tokens := auth.NewTokens(strings.Repeat("k", 32), time.Hour, clock)
	db := testkit.DB(t)
	users := gsql.NewUsers(db)
	deps, cfg := auth.Deps{Store: users, Tokens: tokens, Clock: clock}, auth.Config{Sessions: auth.DefaultConfig().Sessions}
	if tune != nil {
		tune(&deps, &cfg)
	}
	return fixture{svc: auth.New(deps, cfg), clock: clock, users: users, tokens: tokens, db: db}
}

func TestSignupLoginAndMe(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	sess, err := svc.Signup(ctx, auth.SignupInput{Email: "Ana@Example.com", Password: "correct horse", DisplayName: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	if sess.AccessToken == "" || sess.User.ID == "" || sess.ExpiresIn != time.Hour {
		t.Fatalf("bad session: %+v", sess)
	}
	// Emails match case-insensitively.
	login, err := svc.Login(ctx, auth.LoginInput{Email: "ana@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := svc.Authenticate(ctx, login.AccessToken)
	if err != nil || caller.UserID != sess.User.ID {
		t.Fatalf("token names %q, %v; want %q", caller.UserID, err, sess.User.ID)
	}
	me, err := svc.Me(ctx, caller.UserID)
	if err != nil || me.DisplayName != "Ana" || me.PasswordHash == "" || me.PasswordHash == "correct horse" {
		t.Fatalf("me: %+v %v", me, err)
	}
}

func TestDuplicateEmailIsConflict(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	in := auth.SignupInput{Email: "bo@example.com", Password: "12345678", DisplayName: "Bo"}
	if _, err := svc.Signup(ctx, in); err != nil {
		t.Fatal(err)
	}
	in.Email = "BO@example.com"
	if _, err := svc.Signup(ctx, in); guidepost.ErrorCode(err) != guidepost.ECONFLICT {
		t.Fatalf("want conflict, got %v", err)
	}
}

func TestBadLoginSaysNothingAboutWhichFieldWasWrong(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	svc.Signup(ctx, auth.SignupInput{Email: "cy@example.com", Password: "password1", DisplayName: "Cy"})
	_, wrongPassword := svc.Login(ctx, auth.LoginInput{Email: "cy@example.com", Password: "password2"})
	_, unknownEmail := svc.Login(ctx, auth.LoginInput{Email: "nobody@example.com", Password: "password1"})
	for _, err := range []error{wrongPassword, unknownEmail} {
		if guidepost.ErrorCode(err) != guidepost.ECREDENTIALS {
			t.Fatalf("want unauthorized, got %v", err)
		}
	}
	if guidepost.ErrorMessage(wrongPassword) != guidepost.ErrorMessage(unknownEmail) {
		t.Fatal("the two failures must read the same")
	}
}

func TestGuestsCannotLogIn(t *testing.T) {
	svc, _ := newService(t)
	sess, err := svc.Guest(context.Background())
	if err != nil || !sess.User.Guest || sess.User.Email != "" {
		t.Fatalf("guest: %+v %v", sess, err)
	}
	if _, err := svc.Login(context.Background(), auth.LoginInput{Email: "", Password: ""}); guidepost.ErrorCode(err) != guidepost.ECREDENTIALS {
		t.Fatalf("want credentials, got %v", err)
	}
}

func TestSignupValidationNamesEveryField(t *testing.T) {
	svc, _ := newService(t)
	_, err := svc.Signup(context.Background(), auth.SignupInput{Email: "not-an-email", Password: "short", DisplayName: " "})
	fields := map[string]bool{}
	for _, f := range guidepost.ErrorFields(err) {
		fields[f.Field] = true
	}
	if guidepost.ErrorCode(err) != guidepost.EINVALID || !fields["email"] || !fields["password"] || !fields["display_name"] {
		t.Fatalf("want all three fields named, got %v %v", err, fields)
	}
}

func TestExpiredAndTamperedTokensAreRefused(t *testing.T) {
	svc, clock := newService(t)
	ctx := context.Background()
	sess, err := svc.Guest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tampered := sess.AccessToken[:len(sess.AccessToken)-2] + flip(sess.AccessToken[len(sess.AccessToken)-2:])
	if _, err := svc.Authenticate(context.Background(), tampered); guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
		t.Fatalf("tampered token accepted: %v", err)
	}
	other := auth.NewTokens(strings.Repeat("x", 32), time.Hour, clock)
	forged, _ := other.Issue(sess.User.ID, "01900000-0000-7000-8000-000000000000")
	if _, err := svc.Authenticate(context.Background(), forged); guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
		t.Fatalf("token signed with another key accepted: %v", err)
	}
	clock.Add(time.Hour + time.Second)
	_, err = svc.Authenticate(context.Background(), sess.AccessToken)
	if guidepost.ErrorCode(err) != guidepost.ETOKENEXPIRED || !strings.Contains(guidepost.ErrorMessage(err), "expired") {
		t.Fatalf("expired token: %v", err)
	}
	// Past their expiry too, a forged or tampered token is invalid, never
	// "expired": a client told to refresh it would keep a forgery.
	for name, token := range map[string]string{"tampered": tampered, "another key": forged} {
		if _, err := svc.Authenticate(context.Background(), token); guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
			t.Errorf("%s token after its expiry: %v, want %s", name, err, guidepost.EUNAUTHORIZED)
		}
	}
}

func flip(s string) string {
	if s == "AA" {
		return "BB"
	}
	return "AA"
}
