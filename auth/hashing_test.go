package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

// When every hashing slot is busy, sign-up sheds with "unavailable" after a
// short wait instead of queueing 19 MiB argon2 runs without bound.
func TestSignupShedsWhenHashingIsSaturated(t *testing.T) {
	svc := New(Deps{Store: noAccounts{}, Tokens: NewTokens(strings.Repeat("k", 32), time.Hour, guidepost.SystemClock{}), Clock: guidepost.SystemClock{}}, Config{})
	for range cap(svc.hashing) {
		svc.hashing <- struct{}{}
	}
	start := time.Now()
	_, err := svc.Signup(context.Background(), SignupInput{Email: "a@b.co", Password: "12345678", DisplayName: "A"})
	if guidepost.ErrorCode(err) != guidepost.EUNAVAILABLE {
		t.Fatalf("want unavailable, got %v", err)
	}
	if took := time.Since(start); took < 900*time.Millisecond || took > 3*time.Second {
		t.Fatalf("shed after %s, want about a second", took)
	}
}

// noAccounts is a store that knows no email: sign-up goes on to hash.
type noAccounts struct{ Store }

func (noAccounts) UserByEmail(context.Context, string) (User, error) {
	return User{}, guidepost.Errorf(guidepost.ENOTFOUND, "user not found")
}
