package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// Only work done spends an account's write budget (RATE_GUIDE_WRITES_PER_USER;
// RATE_UPLOADS_PER_USER is spent by the media service when a render is
// queued): a refusal (4xx), an Idempotency-Key replay or a dedupe answer
// gives back what it took. Those answers still cost the server a request
// each, so they count against an abuse limit of their own, larger than the
// budget (RATE_GUIDE_REFUSALS_PER_USER, RATE_UPLOAD_REFUSALS_PER_USER): a
// retry loop that keeps failing is slowed by it, never by the allowance
// of work that succeeds, and a flood of refused requests stays bounded.
//
// A 429 is neither: the limiter refused it before any work. A 5xx is the
// server's fault: it gives the budget back and counts as no abuse.

// metered runs a write route under budget (spent before, given back after
// an answer that did no work; Off: none) and refusals (asked before:
// refused once spent; spent after an answer that did no work). dedupe
// says whether a 2xx answer found existing work rather than doing it.
func (s *Server) metered(budget, refusals guidepost.Rate, dedupe func(*gin.Context) bool) gin.HandlerFunc {
	if s.deps.Limiter == nil || budget.Off() && refusals.Off() {
		return func(c *gin.Context) { c.Next() }
	}
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		key := auth.UserID(ctx)
		if !refusals.Off() {
			if res := s.deps.Limiter.Take(ctx, key, refusals, 0); res.Remaining < 1 {
				s.refuse(c, refusals, res, "too many refused, repeated or duplicate writes")
				return
			}
		}
		spent := false
		if !budget.Off() {
			r, res := s.take(ctx, budget, byAccount(c))
			setRateHeaders(c, r.Name, int64(r.Count), r.Period, int64(res.Remaining), res.ResetAfter)
			if !res.Allowed {
				s.refuse(c, r, res, "too many requests")
				return
			}
			spent = true
		}
		c.Next()
		status := c.Writer.Status()
		idle := status >= 400 || c.Writer.Header().Get("Idempotent-Replayed") == "true" || status < 300 && dedupe != nil && dedupe(c)
		if !idle {
			return
		}
		later := context.WithoutCancel(ctx)
		if spent {
			s.deps.Limiter.Take(later, key, budget, -1)
		}
		if !refusals.Off() && status < 500 {
			s.deps.Limiter.Take(later, key, refusals, 1)
		}
	}
}

// refuse answers 429 for rate r as limit does.
func (s *Server) refuse(c *gin.Context, r guidepost.Rate, res guidepost.RateResult, what string) {
	if res.RetryAfter <= 0 {
		// An ask answers no RetryAfter: the next event is back one
		// emission interval before the whole allowance is.
		interval := r.Period / time.Duration(r.Count)
		res.RetryAfter = max(res.ResetAfter-time.Duration(r.Count-1)*interval, interval)
	}
	c.Header("Connection", "close") // the body stays unread
	fail(c, guidepost.RateLimited(r, res, fmt.Sprintf("%s (%s allows %d per %s); retry in %d s",
		what, r.Name, r.Count, r.Period, seconds(res.RetryAfter))))
}

// dedupeAnswer: a 200 where the route creates with 201 or 202 found what
// existed (the same photo, the open upload of the same file).
func dedupeAnswer(c *gin.Context) bool { return c.Writer.Status() == http.StatusOK }
