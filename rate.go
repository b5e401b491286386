package guidepost

import (
	"fmt"
	"net/netip"
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

// Scope is one key a limit counts a caller under, and the multiple of the
// limit that key gets.
type Scope struct {
	Key  string
	Mult int
}

// Multiples of a per-address limit that an IPv6 client's wider prefixes
// get. A subscriber is handed a /64, a /56 or a /48 (256 or 65,536 /64s to
// walk at will); counting the /64 alone gave a /48 65,536 clients'
// allowance, counting its /56 and /48 too gives it at most 16, while 4
// (or 16) households or phones sharing one get their own.
const (
	Mult56 = 4
	Mult48 = 16
)

// AddrScopes are the keys a client address is counted under, as the API
// names it: an IPv4 address is one; an IPv6 /64 ("2001:db8:1:2::/64") is
// itself at the limit, its /56 at Mult56 times and its /48 at Mult48 times
// it. Anything else (an account id) is one key.
func AddrScopes(addr string) []Scope {
	p, err := netip.ParsePrefix(addr)
	if err != nil || !p.Addr().Is6() || p.Bits() != 64 {
		return []Scope{{addr, 1}}
	}
	wider := func(bits int) string { return netip.PrefixFrom(p.Addr(), bits).Masked().String() }
	return []Scope{{addr, 1}, {wider(56), Mult56}, {wider(48), Mult48}}
}

// Times is r with m times the events.
func (r Rate) Times(m int) Rate {
	r.Count *= m
	return r
}
