package api_test

import (
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

// The auth routes read no bearer token: an interceptor that sends the
// expired (or revoked, or forged) token along with its refresh, log-in or
// sign-up must get a session, not the 401 that sent it there.
func TestAuthRoutesIgnoreAStaleBearer(t *testing.T) {
	h := newHarness(t)
	r := h.do("POST", "/v1/auth/signup", "", `{"email":"ro@example.com","password":"correct horse","display_name":"Ro"}`)
	token, refresh := r.body["access_token"].(string), r.body["refresh_token"].(string)
	h.clock.now.Add(int64(2 * time.Hour)) // the access token has expired
	problem(t, h.do("GET", "/v1/me", token, ""), 401)
	r = h.do("POST", "/v1/auth/refresh", token, `{"refresh_token":"`+refresh+`"}`)
	if r.status != 200 {
		t.Fatalf("refresh with the expired bearer: %d %v", r.status, r.body)
	}
	for _, stale := range []string{token, "not-a-token"} {
		if r := h.do("POST", "/v1/auth/login", stale, `{"email":"ro@example.com","password":"correct horse"}`); r.status != 200 {
			t.Fatalf("log-in with bearer %q: %d %v", stale, r.status, r.body)
		}
		if r := h.do("POST", "/v1/auth/guest", stale, ""); r.status != 201 {
			t.Fatalf("guest with bearer %q: %d %v", stale, r.status, r.body)
		}
	}
	// A route that needs the token still reads it.
	r = h.do("GET", "/v1/me", token, "")
	problem(t, r, 401)
	if r.body["type"] != "/problems/token_expired" {
		t.Fatalf("%v", r.body)
	}
}

// Both 409s of an upgrade name their cause: the email taken, the account
// no guest.
func TestUpgradeConflictsNameTheirCause(t *testing.T) {
	h := newHarness(t)
	full := h.do("POST", "/v1/auth/signup", "", `{"email":"taken@example.com","password":"correct horse","display_name":"T"}`)
	guest := h.do("POST", "/v1/auth/guest", "", "")
	r := h.do("POST", "/v1/auth/upgrade", guest.body["access_token"].(string), `{"email":"taken@example.com","password":"correct horse","display_name":"G"}`)
	problem(t, r, 409, "email")
	wantCode(t, r, "email", guidepost.FTAKEN)
	r = h.do("POST", "/v1/auth/upgrade", full.body["access_token"].(string), `{"email":"new@example.com","password":"correct horse","display_name":"G"}`)
	problem(t, r, 409, "")
	wantCode(t, r, "", guidepost.FNOTGUEST)
	r = h.do("POST", "/v1/auth/password", guest.body["access_token"].(string), `{"current_password":"whatever1","new_password":"correct horse"}`)
	problem(t, r, 409, "current_password")
	wantCode(t, r, "current_password", guidepost.FNOPASSWORD)
}

// Every 429 names its limit in errors (field "", code rate_limited) and
// carries Retry-After, whichever limit refused it.
func TestRateLimitedNamesTheLimit(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Limiter = limiter(t)
		d.Rates.Signup = guidepost.Rate{Name: "signup", Count: 1, Period: time.Hour}
	})
	post(t, srv.URL, "/v1/auth/signup", "", "", `{"email":"a1@example.com","password":"correct horse","display_name":"A"}`)
	r := post(t, srv.URL, "/v1/auth/signup", "", "", `{"email":"a2@example.com","password":"correct horse","display_name":"A"}`)
	problem(t, r, 429, "")
	e := r.body["errors"].([]any)[0].(map[string]any)
	if e["limit"] != "signup" || e["code"] != "rate_limited" || e["field"] != "" {
		t.Fatalf("%v", r.body)
	}
}

func wantCode(t *testing.T, r reply, field, code string) {
	t.Helper()
	for _, e := range r.body["errors"].([]any) {
		if fe := e.(map[string]any); fe["field"] == field && fe["code"] == code {
			return
		}
	}
	t.Fatalf("no %s/%s in %v", field, code, r.body)
}
