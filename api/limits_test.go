package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/ratelimit"
)

func limiter(t *testing.T) *ratelimit.Redis {
	opt, _ := redis.ParseURL(testkit.RedisURL(t, testkit.RedisDBAPI))
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return ratelimit.New(ratelimit.Deps{Client: c}, ratelimit.Config{})
}

func post(t *testing.T, base, path, token, forwardedFor, body string) reply {
	t.Helper()
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	h := &harness{t: t}
	return h.sendRequest(req)
}

// Over a limit: 429 problem+json with Retry-After and the RateLimit
// headers; under it the headers already say what is left.
func TestGuestCreationIsLimitedPerAddress(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Limiter = limiter(t)
		d.Rates.Guest = guidepost.Rate{Name: "guest", Count: 3, Period: time.Hour}
	})
	for i := range 3 {
		r := post(t, srv.URL, "/v1/auth/guest", "", "", "{}")
		if r.status != 201 {
			t.Fatalf("guest %d: %d %v", i, r.status, r.body)
		}
		if got := r.header.Get("RateLimit-Policy"); got != `"guest";q=3;w=3600` {
			t.Fatalf("RateLimit-Policy %q", got)
		}
		if got := r.header.Get("RateLimit"); !strings.HasPrefix(got, `"guest";r=`+string(rune('2'-i))+";t=") {
			t.Fatalf("guest %d: RateLimit %q", i, got)
		}
	}
	r := post(t, srv.URL, "/v1/auth/guest", "", "", "{}")
	problem(t, r, 429)
	if r.body["type"] != "/problems/rate_limited" {
		t.Fatalf("type %v", r.body["type"])
	}
	if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	if got := r.header.Get("RateLimit"); !strings.HasPrefix(got, `"guest";r=0;t=`) {
		t.Fatalf("RateLimit %q", got)
	}
	// X-Forwarded-For from a client that is not a trusted proxy changes
	// nothing: otherwise every request could claim a fresh address.
	problem(t, post(t, srv.URL, "/v1/auth/guest", "", "", "{}"), 429)
	problem(t, post(t, srv.URL, "/v1/auth/guest", "", "198.51.100.9", "{}"), 429)
}

// Behind a trusted proxy, X-Forwarded-For names the client, and each
// client address has its own count.
func TestTrustedProxyNamesTheClient(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Limiter = limiter(t)
		d.Rates.Signup = guidepost.Rate{Name: "signup", Count: 1, Period: time.Hour}
		d.TrustedProxies = []string{"127.0.0.1/32", "::1"}
	})
	body := func(n string) string {
		return `{"email":"` + n + `@example.com","password":"correct horse","display_name":"N"}`
	}
	if r := post(t, srv.URL, "/v1/auth/signup", "", "203.0.113.1", body("a")); r.status != 201 {
		t.Fatalf("first: %d %v", r.status, r.body)
	}
	problem(t, post(t, srv.URL, "/v1/auth/signup", "", "203.0.113.1", body("b")), 429)
	if r := post(t, srv.URL, "/v1/auth/signup", "", "203.0.113.2", body("c")); r.status != 201 {
		t.Fatalf("another client behind the proxy: %d %v", r.status, r.body)
	}
	// An IPv6 client is counted by its /64.
	if r := post(t, srv.URL, "/v1/auth/signup", "", "2001:db8:1:2::1", body("d")); r.status != 201 {
		t.Fatalf("v6: %d %v", r.status, r.body)
	}
	problem(t, post(t, srv.URL, "/v1/auth/signup", "", "2001:db8:1:2:ffff::9", body("e")), 429)
}

// Log-in failures are counted by auth under the address the API reads;
// over the limit the answer is 429, not 401.
func TestLoginFailuresAnswer429(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.AuthDeps.Limiter, d.Login = limiter(t), authLimits(2)
	})
	for range 2 {
		problem(t, post(t, srv.URL, "/v1/auth/login", "", "", `{"email":"x@example.com","password":"guess1234"}`), 401)
	}
	r := post(t, srv.URL, "/v1/auth/login", "", "", `{"email":"y@example.com","password":"guess1234"}`)
	problem(t, r, 429)
	if r.header.Get("Retry-After") == "" || !strings.HasPrefix(r.header.Get("RateLimit-Policy"), `"login_ip";q=2;w=600`) {
		t.Fatalf("headers %v", r.header)
	}
}

func authLimits(perAddr int) auth.LoginLimits {
	return auth.LoginLimits{PerAddr: guidepost.Rate{Name: "login_ip", Count: perAddr, Period: 10 * time.Minute}}
}

// A rename bumps every cached tile of the account's guides on every API
// process: an account gets RATE_RENAMES_PER_USER of them, then 429, and
// another account still renames.
func TestRenamesAreLimitedPerAccount(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Limiter = limiter(t)
		d.Rates.Rename = guidepost.Rate{Name: "rename", Count: 2, Period: 24 * time.Hour}
	})
	h := &harness{t: t, srv: srv}
	token, other := guestToken(t, srv.URL), guestToken(t, srv.URL)
	for i := range 2 {
		r := h.do("PATCH", "/v1/me", token, `{"display_name":"name `+string(rune('a'+i))+`"}`)
		if r.status != 200 || r.header.Get("RateLimit-Policy") != `"rename";q=2;w=86400` {
			t.Fatalf("rename %d: %d %v %v", i, r.status, r.body, r.header)
		}
	}
	r := h.do("PATCH", "/v1/me", token, `{"display_name":"name c"}`)
	problem(t, r, 429)
	if r.body["type"] != "/problems/rate_limited" || r.header.Get("Retry-After") == "" {
		t.Fatalf("%v %v", r.body, r.header)
	}
	if me := h.do("GET", "/v1/me", token, ""); me.body["display_name"] != "name b" {
		t.Fatalf("the refused rename changed the name: %v", me.body)
	}
	if r := h.do("PATCH", "/v1/me", other, `{"display_name":"other"}`); r.status != 200 {
		t.Fatalf("another account: %d %v", r.status, r.body)
	}
}

// An IPv6 client is counted by its /64, and its /56 and /48 by multiples
// of the limit: walking the /64s of one /56 (or of one /48) gets a few
// clients' allowance, not 256 (or 65,536).
func TestIPv6PrefixesAreCountedToo(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Limiter = limiter(t)
		d.Rates.Guest = guidepost.Rate{Name: "guest", Count: 1, Period: time.Hour}
		d.TrustedProxies = []string{"127.0.0.1/32", "::1"}
	})
	created := func(addrs []string) int {
		n := 0
		for _, a := range addrs {
			switch r := post(t, srv.URL, "/v1/auth/guest", "", a, "{}"); r.status {
			case 201:
				n++
			case 429:
			default:
				t.Fatalf("guest from %s: %d %v", a, r.status, r.body)
			}
		}
		return n
	}
	var oneSlash56, oneSlash48 []string
	for i := range 20 {
		oneSlash56 = append(oneSlash56, fmt.Sprintf("2001:db8:7:%x::1", i))        // /64s of 2001:db8:7::/56
		oneSlash48 = append(oneSlash48, fmt.Sprintf("2001:db8:7:%x::1", (i+1)<<8)) // each in a /56 of its own
	}
	if n := created(oneSlash56); n != guidepost.Mult56 {
		t.Fatalf("20 /64s of one /56: %d guests, want %d", n, guidepost.Mult56)
	}
	if n := created(oneSlash48); n != guidepost.Mult48-guidepost.Mult56 {
		t.Fatalf("20 /56s of one /48, after its first /56's: %d guests, want %d", n, guidepost.Mult48-guidepost.Mult56)
	}
	if n := created([]string{"2001:db8:8::1", "203.0.113.50"}); n != 2 {
		t.Fatalf("another /48 and an IPv4 client: %d guests, want 2", n)
	}
}

// A log-in's in-flight cap and failure count hold for an IPv6 client's
// /48 as a whole too, through the address the API hands auth.
func TestIPv6LoginFailuresAreCountedPerPrefix(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.AuthDeps.Limiter, d.Login = limiter(t), authLimits(1)
		d.TrustedProxies = []string{"127.0.0.1/32", "::1"}
	})
	refused := 0
	for i := range 20 {
		r := post(t, srv.URL, "/v1/auth/login", "", fmt.Sprintf("2001:db8:9:%x::1", i<<8), `{"email":"x@example.com","password":"guess1234"}`)
		switch r.status {
		case 401:
		case 429:
			refused++
		default:
			t.Fatalf("log-in %d: %d %v", i, r.status, r.body)
		}
	}
	if refused != 20-guidepost.Mult48 {
		t.Fatalf("20 failed log-ins from the /56s of one /48: %d refused, want %d", refused, 20-guidepost.Mult48)
	}
}

// Refreshes are counted per address (RATE_REFRESH_PER_IP): a client
// following its own rotation chain as fast as it can presents each token
// once, which no per-token count sees; another address still refreshes.
func TestRefreshesAreLimitedPerAddress(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Limiter = limiter(t)
		d.Rates.Refresh = guidepost.Rate{Name: "refresh_ip", Count: 2, Period: time.Hour}
		d.TrustedProxies = []string{"127.0.0.1/32", "::1"}
	})
	token := func(addr string) string {
		r := post(t, srv.URL, "/v1/auth/guest", "", addr, "{}")
		if r.status != 201 {
			t.Fatalf("guest: %d %v", r.status, r.body)
		}
		return r.body["refresh_token"].(string)
	}
	refresh := func(addr, tok string) reply {
		return post(t, srv.URL, "/v1/auth/refresh", "", addr, `{"refresh_token":"`+tok+`"}`)
	}
	tok := token("203.0.113.7")
	for i := range 2 {
		r := refresh("203.0.113.7", tok)
		if r.status != 200 {
			t.Fatalf("refresh %d: %d %v", i, r.status, r.body)
		}
		tok = r.body["refresh_token"].(string)
	}
	r := refresh("203.0.113.7", tok)
	problem(t, r, 429)
	if r.body["type"] != "/problems/rate_limited" || r.header.Get("Retry-After") == "" {
		t.Fatalf("%v %v", r.body, r.header)
	}
	if r := refresh("203.0.113.8", token("203.0.113.8")); r.status != 200 {
		t.Fatalf("another address: %d %v", r.status, r.body)
	}
	if r := refresh("203.0.113.7", tok); r.status != 429 {
		t.Fatalf("still over the limit: %d %v", r.status, r.body)
	}
}
