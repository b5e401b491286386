package auth

import (
	"time"

	"github.com/maypok86/otter/v2"
)

// verifiedTokens remembers the tokens Verify passed, until each expires.
// Even read by tokenReader, a token costs an HMAC and two base64 decodes
// (1.5 µs, BenchmarkTokenReader; the library takes 14 µs and 57
// allocations), and an app sends the same token on every request until
// it refreshes it: a remembered one costs 0.3 µs (BenchmarkVerify). A
// remembered token gives the same answer a full check would: the key is
// the whole token, the signature, issuer and method never change for it,
// and the one check that moves with time, its expiry (valid while now <
// exp), is made again on every use. Whether its session is still live is
// not remembered: that is asked of PostgreSQL per request
// (Service.Authenticate).
type verifiedTokens struct {
	seen *otter.Cache[string, verified]
}

type verified struct {
	caller Caller
	exp    time.Time
}

// maxVerifiedTokens bounds the memory: ~400 bytes a token, ~6 MiB in all.
const maxVerifiedTokens = 16_384

func newVerifiedTokens(clock func() time.Time) verifiedTokens {
	return verifiedTokens{seen: otter.Must(&otter.Options[string, verified]{
		MaximumSize: maxVerifiedTokens,
		ExpiryCalculator: otter.ExpiryWritingFunc(func(e otter.Entry[string, verified]) time.Duration {
			return max(e.Value.exp.Sub(clock()), time.Millisecond)
		}),
	})}
}

// get returns the caller of a token verified before that is still valid
// at now.
func (v verifiedTokens) get(token string, now time.Time) (Caller, bool) {
	if e, ok := v.seen.GetIfPresent(token); ok && now.Before(e.exp) {
		return e.caller, true
	}
	return Caller{}, false
}

func (v verifiedTokens) put(token string, c Caller, exp time.Time) {
	v.seen.Set(token, verified{caller: c, exp: exp})
}
