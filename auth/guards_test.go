package auth_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// A taken email is answered from a lookup: with every hashing slot busy,
// sign-up and upgrade still say 409 at once instead of waiting for a slot
// (and a flood of them never runs argon2 at all).
func TestTakenEmailIsAnsweredBeforeHashing(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	signup(t, svc, "taken@example.com")
	guest, err := svc.Guest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release := svc.OccupyHashing()
	defer release()
	in := auth.SignupInput{Email: "Taken@example.com", Password: "password1", DisplayName: "T"}
	_, err = svc.Signup(ctx, in)
	wantTaken(t, err, "sign-up")
	_, err = svc.Upgrade(ctx, auth.Caller{UserID: guest.User.ID}, in)
	wantTaken(t, err, "upgrade")
}

func wantTaken(t *testing.T, err error, what string) {
	t.Helper()
	f := guidepost.ErrorFields(err)
	if guidepost.ErrorCode(err) != guidepost.ECONFLICT || len(f) != 1 || f[0].Field != "email" || f[0].Code != guidepost.FTAKEN {
		t.Fatalf("%s with a taken email: %v %v, want conflict naming email", what, err, f)
	}
}

// "Email taken" tells whether an account exists, so it counts as a failed
// attempt, for the address and for the email, on sign-up and upgrade
// alike: an address probing emails is refused after PerAddr of them.
func TestTakenEmailsCountAsFailures(t *testing.T) {
	svc := limitedService(t, guidepost.Rate{Name: "login_ip", Count: 4, Period: time.Hour},
		guidepost.Rate{Name: "login_email", Count: 100, Period: time.Hour})
	ctx := context.Background()
	const prober = "203.0.113.20"
	for i := range 4 {
		signup(t, svc, fmt.Sprintf("user%d@example.com", i))
	}
	guest, err := svc.Guest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		in := auth.SignupInput{Email: fmt.Sprintf("user%d@example.com", i), Password: "password1", DisplayName: "P", ClientAddr: prober}
		if i%2 == 0 {
			_, err = svc.Signup(ctx, in)
		} else {
			_, err = svc.Upgrade(ctx, auth.Caller{UserID: guest.User.ID}, in)
		}
		wantTaken(t, err, fmt.Sprintf("probe %d", i))
	}
	free := auth.SignupInput{Email: "free@example.com", Password: "password1", DisplayName: "F", ClientAddr: prober}
	_, err = svc.Upgrade(ctx, auth.Caller{UserID: guest.User.ID}, free)
	if l := guidepost.ErrorLimit(err); guidepost.ErrorCode(err) != guidepost.ERATELIMITED || l == nil || l.Name != "login_ip" {
		t.Fatalf("5th attempt from the prober: %v, want rate_limited by login_ip", err)
	}
	if _, err := svc.Signup(ctx, auth.SignupInput{Email: "free2@example.com", Password: "password1", DisplayName: "F", ClientAddr: prober}); guidepost.ErrorCode(err) != guidepost.ERATELIMITED {
		t.Fatalf("sign-up from the prober: %v, want rate_limited", err)
	}
	// Successes give their hold back, and other addresses are not refused.
	for i := range 6 {
		in := auth.SignupInput{Email: fmt.Sprintf("new%d@example.com", i), Password: "password1", DisplayName: "N", ClientAddr: "198.51.100.20"}
		if _, err := svc.Signup(ctx, in); err != nil {
			t.Fatalf("honest sign-up %d: %v", i, err)
		}
	}
}

// A wrong current password is a failed log-in: it spends the account's
// per-email allowance (whatever the address) and the address's, so a
// stolen access token cannot guess the password without limit.
func TestWrongCurrentPasswordIsAFailedLogin(t *testing.T) {
	svc := limitedService(t, guidepost.Rate{Name: "login_ip", Count: 100, Period: time.Hour},
		guidepost.Rate{Name: "login_email", Count: 3, Period: time.Hour})
	ctx := context.Background()
	signup(t, svc, "owner@example.com")
	sess, err := svc.Login(ctx, auth.LoginInput{Email: "owner@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	change := func(addr, current string) error {
		_, err := svc.ChangePassword(ctx, auth.PasswordChange{UserID: sess.User.ID, Current: current, Next: "battery staple", ClientAddr: addr})
		return err
	}
	for i := range 3 {
		err := change(fmt.Sprintf("203.0.113.%d", 30+i), "guess")
		if f := guidepost.ErrorFields(err); len(f) != 1 || f[0].Field != "current_password" {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if err := change("203.0.113.40", "correct horse"); guidepost.ErrorCode(err) != guidepost.ERATELIMITED {
		t.Fatalf("4th attempt at the account: %v, want rate_limited", err)
	}
	if code := login(svc, "198.51.100.30", "owner@example.com", "correct horse"); code != guidepost.ERATELIMITED {
		t.Fatalf("log-in after 3 wrong current passwords: %q, want rate_limited (same allowance)", code)
	}
}

// Forty wrong password changes in flight at once from one address (one
// stolen token) leave the hashing slots to an honest log-in from
// elsewhere, with Redis down so that only the in-flight cap holds.
func TestPasswordChangeFloodDoesNotStarveLogins(t *testing.T) {
	svc := serviceWithRedisDown(t)
	ctx := context.Background()
	signup(t, svc, "victim@example.com")
	stolen, err := svc.Login(ctx, auth.LoginInput{Email: "victim@example.com", Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	honest, codes := floodBesideAnHonestLogin(t, svc, 40, func(int) string {
		_, err := svc.ChangePassword(ctx, auth.PasswordChange{UserID: stolen.User.ID, Current: "guess", Next: "new password", ClientAddr: "203.0.113.77"})
		return guidepost.ErrorCode(err)
	})
	if honest != "" {
		t.Fatalf("honest log-in beside 40 password changes: %q (flood: %v)", honest, codes)
	}
	if codes[guidepost.ERATELIMITED] == 0 || codes[guidepost.EUNAVAILABLE] != 0 {
		t.Fatalf("flood answered %v: want some refused at once and none left waiting for a hashing slot", codes)
	}
}
