package auth_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/ratelimit"
)

// limitedService is the real service on the real limiter, on a private
// Redis so the counts start empty.
func limitedService(t *testing.T, perAddr, perEmail guidepost.Rate) *auth.Service {
	opt, _ := redis.ParseURL(testkit.StartRedis(t).URL)
	client := redis.NewClient(opt)
	t.Cleanup(func() { client.Close() })
	svc, _ := newServiceWith(t, func(d *auth.Deps, c *auth.Config) {
		d.Limiter = ratelimit.New(ratelimit.Deps{Client: client}, ratelimit.Config{})
		c.Login = auth.LoginLimits{PerAddr: perAddr, PerEmail: perEmail}
	})
	return svc
}

func signup(t *testing.T, svc *auth.Service, email string) {
	t.Helper()
	if _, err := svc.Signup(context.Background(), auth.SignupInput{Email: email, Password: "correct horse", DisplayName: "A"}); err != nil {
		t.Fatal(err)
	}
}

func login(svc *auth.Service, addr, email, password string) string {
	_, err := svc.Login(context.Background(), auth.LoginInput{Email: email, Password: password, ClientAddr: addr})
	return guidepost.ErrorCode(err)
}

// Someone guessing one account's password is stopped at the per-email
// limit, even from many addresses, and even when a guess is right; the
// account's owner and everyone else still log in from their own address.
func TestGuessingOneAccountDoesNotLockOutOthers(t *testing.T) {
	svc := limitedService(t, guidepost.Rate{Name: "login_ip", Count: 100, Period: time.Hour},
		guidepost.Rate{Name: "login_email", Count: 3, Period: time.Hour})
	signup(t, svc, "victim@example.com")
	signup(t, svc, "bystander@example.com")
	for i, addr := range []string{"203.0.113.1", "203.0.113.2", "203.0.113.3"} {
		if code := login(svc, addr, "victim@example.com", "guess"); code != guidepost.ECREDENTIALS {
			t.Fatalf("guess %d: %q, want unauthorized", i, code)
		}
	}
	_, err := svc.Login(context.Background(), auth.LoginInput{Email: "Victim@example.com", Password: "correct horse", ClientAddr: "203.0.113.4"})
	l := guidepost.ErrorLimit(err)
	if guidepost.ErrorCode(err) != guidepost.ERATELIMITED || l == nil || l.Name != "login_email" || l.RetryAfter <= 0 {
		t.Fatalf("4th attempt at the account: %v %+v, want rate_limited by login_email with a retry time", err, l)
	}
	if code := login(svc, "203.0.113.1", "bystander@example.com", "correct horse"); code != "" {
		t.Fatalf("another account's log-in from the guesser's own address: %q", code)
	}
	// Successes give their hold back: they never use up a limit.
	for i := range 10 {
		if code := login(svc, "198.51.100.7", "bystander@example.com", "correct horse"); code != "" {
			t.Fatalf("honest log-in %d: %q", i, code)
		}
	}
}

// One address guessing many accounts is stopped at the per-address limit
// before any hashing; another address is not.
func TestFailuresPerAddress(t *testing.T) {
	svc := limitedService(t, guidepost.Rate{Name: "login_ip", Count: 5, Period: time.Hour},
		guidepost.Rate{Name: "login_email", Count: 100, Period: time.Hour})
	signup(t, svc, "ana@example.com")
	for i := range 5 {
		if code := login(svc, "203.0.113.9", "user"+string(rune('a'+i))+"@example.com", "guess"); code != guidepost.ECREDENTIALS {
			t.Fatalf("failure %d: %q", i, code)
		}
	}
	if code := login(svc, "203.0.113.9", "ana@example.com", "correct horse"); code != guidepost.ERATELIMITED {
		t.Fatalf("6th attempt from the address: %q, want rate_limited", code)
	}
	if code := login(svc, "198.51.100.1", "ana@example.com", "correct horse"); code != "" {
		t.Fatalf("from another address: %q", code)
	}
}

// Forty wrong log-ins in flight at once from one address no longer fill
// the hashing slots: all but the per-address allowance are refused before
// hashing, and an honest log-in from elsewhere gets through meanwhile.
func TestLoginsInFlightDoNotStarveHonestOnes(t *testing.T) {
	svc := limitedService(t, guidepost.Rate{Name: "login_ip", Count: 2, Period: time.Hour},
		guidepost.Rate{Name: "login_email", Count: 100, Period: time.Hour})
	honest, codes := guessesBesideAnHonestLogin(t, svc, 40)
	if honest != "" {
		t.Fatalf("honest log-in beside 40 guesses in flight: %q (guesses: %v)", honest, codes)
	}
	if codes[guidepost.ERATELIMITED] != 38 || codes[guidepost.ECREDENTIALS] != 2 {
		t.Fatalf("guesses answered %v, want 2 checked and 38 refused before hashing", codes)
	}
}

// With Redis gone the rate limits let every attempt through, but one
// address still has at most InFlightPerAddr log-ins being checked: forty
// guesses in flight leave the hashing slots to an honest log-in.
func TestLoginsInFlightAreCappedPerAddressWithoutRedis(t *testing.T) {
	svc := serviceWithRedisDown(t)
	honest, codes := guessesBesideAnHonestLogin(t, svc, 40)
	if honest != "" {
		t.Fatalf("honest log-in beside 40 guesses with Redis down: %q (guesses: %v)", honest, codes)
	}
	if codes[guidepost.ERATELIMITED] == 0 || codes[guidepost.EUNAVAILABLE] != 0 {
		t.Fatalf("guesses answered %v: want some refused at once and none left waiting for a hashing slot", codes)
	}
}

// serviceWithRedisDown has the log-in guards on a limiter whose Redis has
// stopped: the rates let everything through, the in-flight cap of 2 holds.
func serviceWithRedisDown(t *testing.T) *auth.Service {
	srv := testkit.StartRedis(t)
	opt, _ := redis.ParseURL(srv.URL)
	client := redis.NewClient(opt)
	t.Cleanup(func() { client.Close() })
	srv.Stop()
	svc, _ := newServiceWith(t, func(d *auth.Deps, c *auth.Config) {
		d.Limiter = ratelimit.New(ratelimit.Deps{Client: client}, ratelimit.Config{})
		c.Login = auth.LoginLimits{InFlightPerAddr: 2, PerAddr: guidepost.Rate{Name: "login_ip", Count: 2, Period: time.Hour}}
	})
	return svc
}

// guessesBesideAnHonestLogin sends n wrong log-ins at once from one
// address and, meanwhile, the honest account's from another; it returns
// the honest one's code and the guesses' codes, once all have ended.
func guessesBesideAnHonestLogin(t *testing.T, svc *auth.Service, n int) (honest string, codes map[string]int) {
	return floodBesideAnHonestLogin(t, svc, n, func(i int) string {
		return login(svc, "203.0.113.66", "target"+strings.Repeat("x", i)+"@example.com", "guess")
	})
}

// floodBesideAnHonestLogin runs n attempts at once and, meanwhile, an
// honest log-in from another address; it returns the honest one's code
// and the attempts' codes, once all have ended.
func floodBesideAnHonestLogin(t *testing.T, svc *auth.Service, n int, attempt func(i int) string) (honest string, codes map[string]int) {
	signup(t, svc, "honest@example.com")
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes = map[string]int{}
	for i := range n {
		wg.Go(func() {
			code := attempt(i)
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	honest = login(svc, "198.51.100.2", "honest@example.com", "correct horse")
	wg.Wait()
	return honest, codes
}

// One refresh token may be presented PerRefreshToken times: a client's
// retries after a lost answer get working pairs, a flood of one token is
// refused before any row is read, and the pair it was given still works.
func TestRefreshTokenPresentationsAreLimited(t *testing.T) {
	ctx := context.Background()
	opt, _ := redis.ParseURL(testkit.StartRedis(t).URL)
	client := redis.NewClient(opt)
	t.Cleanup(func() { client.Close() })
	svc, _ := newServiceWith(t, func(d *auth.Deps, c *auth.Config) {
		d.Limiter = ratelimit.New(ratelimit.Deps{Client: client}, ratelimit.Config{})
		c.Login = auth.LoginLimits{PerRefreshToken: guidepost.Rate{Name: "refresh_token", Count: 3, Period: time.Minute}}
	})
	sess := guest(t, svc)
	var last auth.Session
	for i := range 3 { // the first use and two retries within the grace
		s, err := svc.Refresh(ctx, sess.RefreshToken)
		if err != nil {
			t.Fatalf("presentation %d: %v", i, err)
		}
		last = s
	}
	_, err := svc.Refresh(ctx, sess.RefreshToken)
	var e *guidepost.Error
	if guidepost.ErrorCode(err) != guidepost.ERATELIMITED || !errors.As(err, &e) || e.Limit == nil || e.Limit.Name != "refresh_token" {
		t.Fatalf("fourth presentation: %v, want the refresh_token rate", err)
	}
	if _, err := svc.Refresh(ctx, last.RefreshToken); err != nil {
		t.Fatalf("the pair a retry got: %v", err)
	}
}
