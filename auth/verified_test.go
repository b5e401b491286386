package auth

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/guidepost/guidepost"
)

// A remembered token answers as a full check would: valid until the
// instant it expires, then expired; a token differing in one character,
// or signed with another key, is never taken for it; a token that failed
// is not remembered.
func TestRememberedTokensAnswerAsTheFullCheck(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var mu sync.Mutex
	clock := guidepost.ClockFunc(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	set := func(tm time.Time) { mu.Lock(); now = tm; mu.Unlock() }
	start := now
	tokens := NewTokens(strings.Repeat("k", 32), time.Hour, clock)
	token, err := tokens.Issue("01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := tokens.Verify(token); err != nil || c.UserID != "01900000-0000-7000-8000-000000000001" {
		t.Fatalf("fresh token: %+v, %v", c, err)
	}
	if _, ok := tokens.seen.get(token, now); !ok {
		t.Fatal("a verified token is not remembered")
	}
	i := len(token) - 6 // inside the signature, clear of base64's padding bits
	tampered := token[:i] + map[bool]string{true: "A", false: "B"}[token[i] != 'A'] + token[i+1:]
	forged, _ := NewTokens(strings.Repeat("x", 32), time.Hour, clock).Issue("01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002")
	noSession, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{RegisteredClaims: jwt.RegisteredClaims{
		Issuer: issuer, Subject: "01900000-0000-7000-8000-000000000001", ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
	}}).SignedString(tokens.secret)
	for name, bad := range map[string]string{"tampered": tampered, "another key": forged, "no session": noSession} {
		for range 2 {
			if _, err := tokens.Verify(bad); guidepost.ErrorCode(err) != guidepost.EUNAUTHORIZED {
				t.Fatalf("%s token: %v", name, err)
			}
		}
		if _, ok := tokens.seen.get(bad, now); ok {
			t.Fatalf("a %s token was remembered", name)
		}
	}
	set(start.Add(time.Hour - time.Second))
	if _, err := tokens.Verify(token); err != nil {
		t.Fatalf("a second before its expiry: %v", err)
	}
	set(start.Add(time.Hour)) // exp itself: valid only while now < exp
	if _, err := tokens.Verify(token); guidepost.ErrorCode(err) != guidepost.ETOKENEXPIRED {
		t.Fatalf("at its expiry: %v, want %s", err, guidepost.ETOKENEXPIRED)
	}
}

// Concurrent callers of one token get one answer (go test -race).
func TestRememberedTokensUnderConcurrency(t *testing.T) {
	tokens := NewTokens(strings.Repeat("k", 32), time.Hour, guidepost.SystemClock{})
	token, _ := tokens.Issue("01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002")
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			for range 100 {
				if c, err := tokens.Verify(token); err != nil || c.SessionID != "01900000-0000-7000-8000-000000000002" {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// What a remembered token saves: BenchmarkVerify/full against /remembered.
func BenchmarkVerify(b *testing.B) {
	tokens := NewTokens(strings.Repeat("k", 32), time.Hour, guidepost.SystemClock{})
	token, _ := tokens.Issue("01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002")
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			tokens.seen.seen.Invalidate(token)
			if _, err := tokens.Verify(token); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("remembered", func(b *testing.B) {
		for b.Loop() {
			if _, err := tokens.Verify(token); err != nil {
				b.Fatal(err)
			}
		}
	})
}
