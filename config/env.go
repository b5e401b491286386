package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// env reads variables through the injected getenv and collects every bad
// value, so one start reports them all. An unset or empty variable takes
// its default; an error names the variable, its value and what it wants.
type env struct {
	get  func(string) string
	errs []error
}

func (e *env) str(key, def string) string {
	if v := e.get(key); v != "" {
		return v
	}
	return def
}

// integer wants a whole number of at least min.
func (e *env) integer(key string, def, min int) int {
	v := e.get(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		e.fail(key, v, fmt.Sprintf("want an integer of at least %d", min))
		return def
	}
	return n
}

// fraction wants a number over 0 and at most 1, such as 0.5.
func (e *env) fraction(key string, def float64) float64 {
	v := e.get(key)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f <= 1) {
		e.fail(key, v, "want a number over 0 and at most 1, such as 0.5")
		return def
	}
	return f
}

// duration wants a Go duration of at least min.
func (e *env) duration(key string, def, min time.Duration) time.Duration {
	v := e.get(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < min {
		want := "a duration such as 20s"
		if min > 0 {
			want = "a positive duration such as 20s"
		}
		e.fail(key, v, "want "+want)
		return def
	}
	return d
}

// byteUnits are the suffixes bytes accepts, binary as the README states
// sizes; a bare number counts bytes.
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}}

// bytes wants a positive size: 26214400 or 25MiB.
func (e *env) bytes(key string, def int64) int64 {
	v := e.get(key)
	if v == "" {
		return def
	}
	num, shift := v, uint(0)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, shift = n, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		e.fail(key, v, "want a positive size in bytes, or with KiB, MiB or GiB")
		return def
	}
	return n << shift
}

// boolean wants on/off (true/false and 1/0 also do).
func (e *env) boolean(key string, def bool) bool {
	switch v := e.get(key); strings.ToLower(v) {
	case "":
		return def
	case "on", "true", "1":
		return true
	case "off", "false", "0":
		return false
	default:
		e.fail(key, v, "want on or off")
		return def
	}
}

// rate wants N/period (`30/10m`: 30 events, then one every 20 s) or off;
// the limit keeps def's name, its name in answers and metrics.
func (e *env) rate(key string, def guidepost.Rate) guidepost.Rate {
	v := e.get(key)
	if v == "" {
		return def
	}
	r, ok := parseRate(def.Name, v)
	if !ok {
		e.fail(key, v, "want a count per period such as 30/10m, or off")
		return def
	}
	return r
}

func parseRate(name, v string) (guidepost.Rate, bool) {
	if strings.EqualFold(v, "off") {
		return guidepost.Rate{Name: name}, true
	}
	count, period, _ := strings.Cut(v, "/")
	n, err1 := strconv.Atoi(strings.TrimSpace(count))
	d, err2 := time.ParseDuration(strings.TrimSpace(period))
	if err1 != nil || err2 != nil || n < 1 || d <= 0 {
		return guidepost.Rate{}, false
	}
	return guidepost.Rate{Name: name, Count: n, Period: d}, true
}

// addrs wants a comma-separated list of IP addresses or CIDR prefixes.
// origins reads a comma-separated list of web origins (scheme://host[:port],
// no path) or "*".
func (e *env) origins(key string) []string {
	v := e.get(key)
	if v == "" {
		return nil
	}
	var out []string
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if u, err := url.Parse(o); o != "*" && (err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "") {
			e.fail(key, v, "want origins such as https://app.example.com (scheme and host, no path), or *, comma-separated")
			return nil
		}
		out = append(out, o)
	}
	return out
}

func (e *env) addrs(key string) []string {
	v := e.get(key)
	if v == "" {
		return nil
	}
	var out []string
	for _, a := range strings.Split(v, ",") {
		a = strings.TrimSpace(a)
		if _, err := netip.ParsePrefix(a); err != nil {
			if _, err := netip.ParseAddr(a); err != nil {
				e.fail(key, v, "want IP addresses or CIDR prefixes, comma-separated")
				return nil
			}
		}
		out = append(out, a)
	}
	return out
}

// urls wants a comma-separated list of postgres:// URLs. A comma not
// followed by a scheme belongs to the URL before it (a URL may list
// several hosts: postgres://a:5432,b:5432/db).
func (e *env) urls(key string) []string {
	v := strings.TrimSpace(e.get(key))
	if v == "" {
		return nil
	}
	var out []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		isURL := strings.HasPrefix(part, "postgres://") || strings.HasPrefix(part, "postgresql://")
		switch {
		case isURL:
			out = append(out, part)
		case len(out) > 0:
			out[len(out)-1] += "," + part
		default:
			e.fail(key, v, "want postgres:// URLs, comma-separated")
			return nil
		}
	}
	return out
}

// oneOf wants one of allowed, in any case; it returns the lower-case form.
func (e *env) oneOf(key, def string, allowed ...string) string {
	v := e.get(key)
	if v == "" {
		return def
	}
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return a
		}
	}
	e.fail(key, v, "want "+orList(allowed))
	return def
}

func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func (e *env) fail(key, value, why string) {
	e.errs = append(e.errs, fmt.Errorf("config: %s=%q: %s", key, value, why))
}

// redis checks a Sentinel REDIS_URL at start; plain redis:// URLs are
// checked by go-redis when the process connects.
func (e *env) redis(key, def string) string {
	v := e.str(key, def)
	if _, _, err := ParseSentinelURL(v); err != nil {
		e.fail(key, "(hidden)", "want redis://… or redis-sentinel://host:port,host:port/master?db=N: "+err.Error())
	}
	return v
}

// formats reads a list of derivative encodings (MEDIA_FORMATS).
func (e *env) formats(key string, def []photo.Encoding) []photo.Encoding {
	v := e.get(key)
	if v == "" {
		return def
	}
	out, err := photo.ParseEncodings(v)
	if err != nil {
		e.fail(key, v, err.Error())
		return def
	}
	return out
}
