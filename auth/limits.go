package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/guidepost/guidepost"
)

// Limiter counts events against a Rate, shared by every API process
// (ratelimit.Redis). Take spends n events (a negative n gives them back)
// and refuses, spending nothing, when they do not fit; it never fails.
type Limiter interface {
	Take(ctx context.Context, key string, r guidepost.Rate, n int) guidepost.RateResult
}

// LoginLimits bound failed attempts on every route that checks or hashes
// a password: log-in, sign-up, a guest's upgrade and a password change
// (see guarded). Each attempt holds one event of both rates while it runs
// and gives it back if it succeeds, so what they count is failures (a
// wrong password, a wrong current password, an email already registered),
// and how many attempts one address can have in flight (each costs an
// argon2 run) is bounded by PerAddr too. PerEmail is counted whatever the
// address, so guessing one account's password from many addresses is
// slowed too; it refuses only attempts at that account, so everyone else
// logs in as usual. The price: someone who knows an email can keep its
// owner out for the window by failing on purpose.
type LoginLimits struct {
	limiter  Limiter        // Deps.Limiter; nil: no rates
	PerAddr  guidepost.Rate // per client address
	PerEmail guidepost.Rate // per account email
	// InFlightPerAddr caps one address's attempts being checked at once in
	// this process (0: no cap). It holds without Redis: if the limiter has
	// to let requests through (Redis slow or down), a flood from one
	// address still cannot fill the hashing slots.
	InFlightPerAddr int
	// PerRefreshToken bounds how often one refresh token may be presented.
	// A client sends a token once and retries it a few times within the
	// grace after a lost answer; every presentation within the grace mints
	// a pair (rows written, argon2-free but not free), so without it one
	// stolen token is a flood of sessions' worth of writes.
	PerRefreshToken guidepost.Rate
}

// guarded runs one attempt of a password route under its guards: the
// address's in-flight cap, then one held event of each rate (addr, and
// email: the account's, or the one being registered), given back unless
// the attempt failed as a guess does. Over a guard it is ERATELIMITED
// before anything is hashed, so a flood costs the server almost nothing
// and cannot fill the hashing slots.
func (s *Service) guarded(ctx context.Context, addr, email string, attempt func() error) error {
	caps, err := s.enter(addr)
	if err != nil {
		return err
	}
	defer s.inflight.Leave(caps...)
	held, err := s.limits.hold(ctx, addr, email)
	if err != nil {
		return err
	}
	err = attempt()
	if !guessFailed(err) {
		held.release(ctx)
	}
	return err
}

// guessFailed reports the answers that tell a guesser something: a wrong
// email or password, a wrong current password, an email already taken.
func guessFailed(err error) bool {
	switch guidepost.ErrorCode(err) {
	case guidepost.EUNAUTHORIZED, guidepost.ECREDENTIALS:
		return true
	}
	for _, f := range guidepost.ErrorFields(err) {
		if f.Code == guidepost.FINCORRECT || f.Code == guidepost.FTAKEN {
			return true
		}
	}
	return false
}

// enter counts one more log-in in flight from addr (and an IPv6 client's
// wider prefixes, at their multiples of the cap: guidepost.AddrCaps), or
// refuses when one of them is at its cap. It returns what to give back.
func (s *Service) enter(addr string) ([]guidepost.Cap, error) {
	if s.limits.InFlightPerAddr <= 0 || addr == "" {
		return nil, nil
	}
	caps := guidepost.AddrCaps("", addr, s.limits.InFlightPerAddr)
	if s.inflight.Enter(caps...) >= 0 {
		return nil, &guidepost.Error{Code: guidepost.ERATELIMITED,
			Message: fmt.Sprintf("at most %d sign-ins at once from one address; retry in a second", s.limits.InFlightPerAddr),
			Limit:   &guidepost.Limit{Name: "concurrent_logins_per_address", Quota: int64(s.limits.InFlightPerAddr), RetryAfter: time.Second}}
	}
	return caps, nil
}

// loginHold is what one attempt holds, given back if it succeeds.
type loginHold struct {
	l    LoginLimits
	keys []string
	by   []guidepost.Rate
}

// hold takes one event of each rate for this attempt, or refuses naming
// the one that is used up.
func (l LoginLimits) hold(ctx context.Context, addr, email string) (*loginHold, error) {
	h := &loginHold{l: l}
	if l.limiter == nil {
		return h, nil
	}
	type scoped struct {
		rate guidepost.Rate
		key  string
		whom string
	}
	var keys []scoped
	if addr != "" {
		for _, sc := range guidepost.AddrScopes(addr) {
			keys = append(keys, scoped{l.PerAddr.Times(sc.Mult), sc.Key, "from this address"})
		}
	}
	for _, k := range append(keys, scoped{l.PerEmail, emailKey(email), "for this account"}) {
		if k.rate.Off() || k.key == "" {
			continue
		}
		res := l.limiter.Take(ctx, k.key, k.rate, 1)
		if !res.Allowed {
			h.release(ctx)
			return nil, guidepost.RateLimited(k.rate, res, fmt.Sprintf(
				"too many failed attempts %s; retry in %d s", k.whom, int(res.RetryAfter.Seconds())+1))
		}
		h.keys, h.by = append(h.keys, k.key), append(h.by, k.rate)
	}
	return h, nil
}

// release gives the held events back.
func (h *loginHold) release(ctx context.Context) {
	for i, key := range h.keys {
		h.l.limiter.Take(context.WithoutCancel(ctx), key, h.by[i], -1)
	}
	h.keys, h.by = nil, nil
}

// emailKey keys a limit by email without writing the address into Redis.
func emailKey(email string) string {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(email))
	return hex.EncodeToString(sum[:12])
}
