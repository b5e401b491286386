package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/guidepost/guidepost"
)

// Limiter counts events against a Rate, shared by every API process
// (ratelimit.Redis). Take spends n events (a negative n gives them back)
// and refuses, spending nothing, when they do not fit; it never fails.
type Limiter interface {
	Take(ctx context.Context, key string, r guidepost.Rate, n int) guidepost.RateResult
}

// LoginLimits bound failed log-ins. Each attempt holds one event of both
// rates while it runs and gives it back if it succeeds, so what they count
// is failures, and how many attempts one address can have in flight (each
// costs an argon2 run) is bounded by PerAddr too. PerEmail is counted
// whatever the address, so guessing one account's password from many
// addresses is slowed too; it refuses only attempts at that account, so
// everyone else logs in as usual. The price: someone who knows an email
// can keep its owner out for the window by failing on purpose.
type LoginLimits struct {
	Limiter  Limiter        // nil: no limits
	PerAddr  guidepost.Rate // per client address
	PerEmail guidepost.Rate // per account email
}

// WithLoginLimits sets the log-in limits; main calls it before serving.
func (s *Service) WithLoginLimits(l LoginLimits) *Service {
	s.limits = l
	return s
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
	if l.Limiter == nil {
		return h, nil
	}
	for _, k := range []struct {
		rate guidepost.Rate
		key  string
		whom string
	}{
		{l.PerAddr, addr, "from this address"},
		{l.PerEmail, emailKey(email), "for this account"},
	} {
		if k.rate.Off() || k.key == "" {
			continue
		}
		res := l.Limiter.Take(ctx, k.key, k.rate, 1)
		if !res.Allowed {
			h.release(ctx)
			return nil, guidepost.RateLimited(k.rate, res, fmt.Sprintf(
				"too many failed log-ins %s; retry in %d s", k.whom, int(res.RetryAfter.Seconds())+1))
		}
		h.keys, h.by = append(h.keys, k.key), append(h.by, k.rate)
	}
	return h, nil
}

// release gives the held events back.
func (h *loginHold) release(ctx context.Context) {
	for i, key := range h.keys {
		h.l.Limiter.Take(context.WithoutCancel(ctx), key, h.by[i], -1)
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
