package api

import (
	"context"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// Limiter counts requests against a Rate, shared by every API process
// (ratelimit.Redis). Take spends n events and refuses, spending nothing,
// when they do not fit; it never fails, allowing when its store is down.
type Limiter interface {
	Take(ctx context.Context, key string, r guidepost.Rate, n int) guidepost.RateResult
}

// Rates are the API's own limits; log-in failures are auth's, uploads the
// media service's (on every upload route alike). A zero Rate limits
// nothing.
type Rates struct {
	Signup     guidepost.Rate // per client address
	Guest      guidepost.Rate // per client address
	GuideWrite guidepost.Rate // per account: create, edit, delete that did their work
	// GuideRefusals is per account: guide writes refused (4xx) or replayed,
	// which give GuideWrite back (refusals.go).
	GuideRefusals guidepost.Rate
	// UploadRefusals is per account: uploads refused (4xx), replayed or
	// answered with an existing photo or upload, on every upload route.
	UploadRefusals guidepost.Rate
	Like           guidepost.Rate // per account: like and unlike
	// Rename is per account: PATCH /v1/me. A rename bumps the cached tiles
	// of every guide the account wrote (lists show the author's name), so
	// every API process drops and reloads them: it is the widest write one
	// request can make.
	// Report is per account: POST /v1/reports. Each report is a row a
	// moderator reads; a flood from one account is refused before it.
	Report guidepost.Rate
	Rename guidepost.Rate
	// Refresh is per client address: POST /v1/auth/refresh. Each refresh
	// is a transaction that writes; a client following its own rotation
	// chain as fast as it can is a stream of them, which no per-token count
	// sees. Generous, as many phones share a carrier's address.
	Refresh guidepost.Rate
	// Block is per account: PUT and DELETE /v1/me/blocks/{user_id}. Each
	// drops the two users' block sets on every API process.
	Block guidepost.Rate
}

// limit refuses a request over r with 429, counting it under the keys by
// picks (the client's address, with an IPv6 client's wider prefixes, or
// account). Answers on a limited route carry the RateLimit headers whether
// refused or not, so a client can slow down before it is refused.
func (s *Server) limit(r guidepost.Rate, by func(*gin.Context) []guidepost.Scope) gin.HandlerFunc {
	return s.limitRefunding(r, by, 0)
}

// limitRefunding is limit for a route whose answer refund (401 for a like:
// its session had ended, which only its write could tell) says the
// request did nothing: the event it spent is given back, so that a token
// of a session signed out, still unexpired, cannot drain its account's
// quota. 0 gives nothing back.
func (s *Server) limitRefunding(r guidepost.Rate, by func(*gin.Context) []guidepost.Scope, refund int) gin.HandlerFunc {
	if s.deps.Limiter == nil || r.Off() {
		return func(c *gin.Context) { c.Next() }
	}
	return func(c *gin.Context) {
		scopes := by(c)
		told, res := s.take(c.Request.Context(), r, scopes)
		setRateHeaders(c, told.Name, int64(told.Count), told.Period, int64(res.Remaining), res.ResetAfter)
		if !res.Allowed {
			c.Header("Connection", "close") // the body stays unread
			fail(c, guidepost.RateLimited(told, res, fmt.Sprintf("too many requests (%s allows %d per %s); retry in %d s",
				told.Name, told.Count, told.Period, seconds(res.RetryAfter))))
			return
		}
		c.Next()
		if refund != 0 && c.Writer.Status() == refund {
			s.giveBack(context.WithoutCancel(c.Request.Context()), r, scopes)
		}
	}
}

// giveBack returns one event of r to every scope (r times its multiple).
func (s *Server) giveBack(ctx context.Context, r guidepost.Rate, scopes []guidepost.Scope) {
	for _, sc := range scopes {
		s.deps.Limiter.Take(ctx, sc.Key, r.Times(sc.Mult), -1)
	}
}

// take spends one event of r under every scope (r times the scope's
// multiple), or none when one refuses: those already spent are given back.
// It returns the rate and result to tell the client: the refusing scope's,
// else the narrowest's.
func (s *Server) take(ctx context.Context, r guidepost.Rate, scopes []guidepost.Scope) (guidepost.Rate, guidepost.RateResult) {
	var told guidepost.RateResult
	tell := r
	for i, sc := range scopes {
		res := s.deps.Limiter.Take(ctx, sc.Key, r.Times(sc.Mult), 1)
		if i == 0 || !res.Allowed {
			told, tell = res, r.Times(sc.Mult)
		}
		if !res.Allowed {
			s.giveBack(context.WithoutCancel(ctx), r, scopes[:i])
			break
		}
	}
	return tell, told
}

func byAccount(c *gin.Context) []guidepost.Scope {
	return []guidepost.Scope{{Key: auth.UserID(c.Request.Context()), Mult: 1}}
}

// byAddress is the client's address as limits count it: an IPv4 address,
// or an IPv6 /64 (one subscriber's prefix, which a client can walk at
// will) with its /56 and /48 at larger multiples (guidepost.AddrScopes).
func byAddress(c *gin.Context) []guidepost.Scope { return guidepost.AddrScopes(clientAddr(c)) }

// addrCaps are the in-flight caps of the client's address: n for it, and
// an IPv6 client's /56 and /48 at their multiples of n.
func addrCaps(c *gin.Context, prefix string, n int) []guidepost.Cap {
	return guidepost.AddrCaps(prefix, clientAddr(c), n)
}

func clientAddr(c *gin.Context) string {
	ip := net.ParseIP(c.ClientIP())
	if ip == nil {
		return c.ClientIP()
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// setRateHeaders writes draft-ietf-httpapi-ratelimit-headers (-09/-10):
// RateLimit-Policy names the limit, its quota q and window w in seconds;
// RateLimit gives what remains (r) and the seconds (t) until the whole
// quota is back.
func setRateHeaders(c *gin.Context, name string, quota int64, window time.Duration, remaining int64, reset time.Duration) {
	c.Header("RateLimit-Policy", strconv.Quote(name)+";q="+strconv.FormatInt(quota, 10)+";w="+strconv.Itoa(seconds(window)))
	c.Header("RateLimit", strconv.Quote(name)+";r="+strconv.FormatInt(max(0, remaining), 10)+";t="+strconv.Itoa(seconds(reset)))
}

// seconds rounds up, so a client that waits as told is not refused again.
func seconds(d time.Duration) int {
	return int(math.Ceil(max(0, d).Seconds()))
}

// limitHeaders adds what a refusal tells the client: when to retry, and
// for a rate limit its RateLimit headers.
func limitHeaders(c *gin.Context, l *guidepost.Limit) {
	if l == nil {
		return
	}
	if l.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(max(1, seconds(l.RetryAfter))))
	}
	if l.Window > 0 {
		setRateHeaders(c, l.Name, l.Quota, l.Window, l.Remaining, l.ResetAfter)
	}
}
