package guidepost

import (
	"fmt"
	"time"
)

// Rate is an allowance of Count events per Period for one key (an address,
// an account), shared by every API process. The zero Rate is no limit.
type Rate struct {
	Name   string // names the limit in answers and metrics: "login_ip", "upload"
	Count  int
	Period time.Duration
}

// Off reports whether r limits nothing.
func (r Rate) Off() bool { return r.Count <= 0 || r.Period <= 0 }

func (r Rate) String() string {
	if r.Off() {
		return "off"
	}
	return fmt.Sprintf("%d/%s", r.Count, r.Period)
}

// RateResult is a limiter's answer for one key.
type RateResult struct {
	Allowed    bool
	Remaining  int           // events still allowed at once
	RetryAfter time.Duration // when refused: until the next event is allowed
	ResetAfter time.Duration // until the key's full allowance is back
}

// Limit is what ERATELIMITED and EQUOTA errors carry, so the API can tell
// a client which allowance it ran into and when to come back.
type Limit struct {
	Name       string        // the Rate's or quota's name
	Quota      int64         // events per Window, or the quota's size
	Window     time.Duration // 0 for a quota or a concurrency cap
	Remaining  int64
	Used       int64         // quotas: how much is used now
	RetryAfter time.Duration // rate limits: when to try again
	ResetAfter time.Duration // rate limits: when the whole allowance is back
}

// RateLimited is the error for an event r refused.
func RateLimited(r Rate, res RateResult, message string) *Error {
	return &Error{Code: ERATELIMITED, Message: message, Limit: &Limit{
		Name: r.Name, Quota: int64(r.Count), Window: r.Period, Remaining: int64(res.Remaining),
		RetryAfter: res.RetryAfter, ResetAfter: res.ResetAfter,
	}}
}

// QuotaExceeded is the error for a request that would take an account past
// a quota of limit (used now).
func QuotaExceeded(name string, limit, used int64, message string) *Error {
	return &Error{Code: EQUOTA, Message: message, Limit: &Limit{Name: name, Quota: limit, Used: used,
		Remaining: max(0, limit-used)}}
}
