package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

type clock struct{ now atomic.Int64 }

func (c *clock) Now() time.Time { return time.Unix(0, c.now.Load()) }

type harness struct {
	t     *testing.T
	srv   *httptest.Server
	clock *clock
}

func newHarness(t *testing.T) *harness {
	c := &clock{}
	c.now.Store(time.Now().UnixNano())
	tokens := auth.NewTokens(strings.Repeat("k", 32), time.Hour, c)
	svc := auth.New(auth.Deps{Store: gsql.NewUsers(testkit.DB(t)), Tokens: tokens, Clock: c}, auth.Config{Sessions: auth.DefaultConfig().Sessions})
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), Auth: svc, Clock: c}, api.Config{})
	h := &harness{t: t, srv: httptest.NewServer(s.Handler()), clock: c}
	t.Cleanup(h.srv.Close)
	return h
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

func (h *harness) do(method, path, token string, body string) reply {
	h.t.Helper()
	contentType := ""
	if body != "" {
		contentType = "application/json"
	}
	status, header, raw := h.send(method, path, token, contentType, strings.NewReader(body))
	r := reply{status: status, header: header}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			h.t.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
		}
	}
	return r
}

// sendRequest sends a request the caller built (extra headers) and decodes
// the answer.
func (h *harness) sendRequest(req *http.Request) reply {
	h.t.Helper()
	method, path := req.Method, req.URL.Path
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			h.t.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
		}
	}
	return r
}

// problem asserts an RFC 9457 answer with status and, when given, the fields.
func problem(t *testing.T, r reply, status int, fields ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %v", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("content type %q", ct)
	}
	for _, k := range []string{"type", "title", "status", "detail"} {
		if _, ok := r.body[k]; !ok {
			t.Fatalf("problem lacks %q: %v", k, r.body)
		}
	}
	named := map[string]bool{}
	errs, _ := r.body["errors"].([]any)
	for _, e := range errs {
		fe := e.(map[string]any)
		named[fe["field"].(string)] = true
		if code, _ := fe["code"].(string); !documentedFieldCodes(t)[code] {
			t.Fatalf("field error with code %q, not one api/openapi.yaml lists: %v", code, r.body)
		}
	}
	for _, f := range fields {
		if !named[f] {
			t.Fatalf("problem does not name field %q: %v", f, r.body)
		}
	}
	causeNamed(t, r, errs)
}

// causeNamed holds every 409 and 429 to naming its cause in errors: a 409
// a field and code, a 429 the limit (and Retry-After).
func causeNamed(t *testing.T, r reply, errs []any) {
	t.Helper()
	switch r.status {
	case http.StatusConflict:
		if len(errs) == 0 {
			t.Fatalf("a 409 without errors: %v", r.body)
		}
	case http.StatusTooManyRequests:
		if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Fatalf("a 429 without Retry-After: %v %v", r.header, r.body)
		}
		for _, e := range errs {
			if fe := e.(map[string]any); fe["code"] == "rate_limited" && fe["limit"] != "" && fe["limit"] != nil {
				return
			}
		}
		t.Fatalf("a 429 whose errors name no limit: %v", r.body)
	}
}

func TestSignupLoginGuestAndMe(t *testing.T) {
	h := newHarness(t)
	r := h.do("POST", "/v1/auth/signup", "", `{"email":"ana@example.com","password":"correct horse","display_name":"Ana"}`)
	if r.status != 201 || r.body["token_type"] != "Bearer" || r.body["expires_in"].(float64) != 3600 {
		t.Fatalf("signup: %d %v", r.status, r.body)
	}
	user := r.body["user"].(map[string]any)
	for _, k := range []string{"id", "email", "display_name", "created_at"} {
		if _, ok := user[k]; !ok {
			t.Fatalf("user lacks %s: %v", k, user)
		}
	}
	r = h.do("POST", "/v1/auth/login", "", `{"email":"ana@example.com","password":"correct horse"}`)
	if r.status != 200 {
		t.Fatalf("login: %d %v", r.status, r.body)
	}
	token := r.body["access_token"].(string)
	me := h.do("GET", "/v1/me", token, "")
	if me.status != 200 || me.body["id"] != user["id"] || me.body["email"] != "ana@example.com" {
		t.Fatalf("me: %d %v", me.status, me.body)
	}
	for _, body := range []string{"", "{}"} {
		g := h.do("POST", "/v1/auth/guest", "", body)
		if g.status != 201 || g.body["user"].(map[string]any)["email"] != nil {
			t.Fatalf("guest with %q: %d %v", body, g.status, g.body)
		}
	}
}

func TestAuthFailures(t *testing.T) {
	h := newHarness(t)
	token := h.do("POST", "/v1/auth/guest", "", "{}").body["access_token"].(string)

	r := h.do("GET", "/v1/me", "", "")
	problem(t, r, 401)
	if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatal("401 without WWW-Authenticate")
	}
	problem(t, h.do("GET", "/v1/me", token+"x", ""), 401)
	problem(t, h.do("GET", "/v1/me", "not.a.jwt", ""), 401)

	h.clock.now.Add(int64(2 * time.Hour))
	r = h.do("GET", "/v1/me", token, "")
	problem(t, r, 401)
	if !strings.Contains(r.body["detail"].(string), "expired") {
		t.Fatalf("expired token detail: %v", r.body)
	}
}

func TestDuplicateEmailAndBadPassword(t *testing.T) {
	h := newHarness(t)
	body := `{"email":"bo@example.com","password":"12345678","display_name":"Bo"}`
	if r := h.do("POST", "/v1/auth/signup", "", body); r.status != 201 {
		t.Fatal(r.body)
	}
	problem(t, h.do("POST", "/v1/auth/signup", "", body), 409)
	wrong := h.do("POST", "/v1/auth/login", "", `{"email":"bo@example.com","password":"87654321"}`)
	unknown := h.do("POST", "/v1/auth/login", "", `{"email":"nobody@example.com","password":"12345678"}`)
	problem(t, wrong, 401, "password")
	problem(t, unknown, 401, "password")
	if wrong.body["detail"] != unknown.body["detail"] || fmt.Sprint(wrong.body["errors"]) != fmt.Sprint(unknown.body["errors"]) {
		t.Fatalf("login failures must not say which was wrong: %v / %v", wrong.body, unknown.body)
	}
	// A wrong password is not a dead session: a client's global "signed
	// out" handler must be able to tell them apart by type alone.
	if wrong.body["type"] != "/problems/credentials" || strings.Contains(wrong.header.Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("wrong password: %v %v", wrong.header, wrong.body)
	}
}

func TestValidationErrorsNameFields(t *testing.T) {
	h := newHarness(t)
	problem(t, h.do("POST", "/v1/auth/signup", "", `{"email":"nope","password":"short","display_name":""}`), 400,
		"email", "password", "display_name")
	problem(t, h.do("POST", "/v1/auth/signup", "", `{"email":"a@b.co","password":"12345678","display_name":"A","admin":true}`), 400, "admin")
	problem(t, h.do("POST", "/v1/auth/signup", "", `{"email":7}`), 400, "email")
	// The body as a whole is "" (its JSON pointer), never a member's name.
	problem(t, h.do("POST", "/v1/auth/signup", "", `{"email":`), 400, "")
	problem(t, h.do("POST", "/v1/auth/signup", "", ``), 400, "")
	huge := `{"email":"a@b.co","display_name":"` + strings.Repeat("x", 2<<20) + `"}`
	problem(t, h.do("POST", "/v1/auth/signup", "", huge), 400, "display_name")
}

func TestUnknownRouteAndWrongMethod(t *testing.T) {
	h := newHarness(t)
	problem(t, h.do("GET", "/v1/nowhere", "", ""), 404)
	r := h.do("GET", "/v1/auth/signup", "", "")
	problem(t, r, 405)
	if r.body["type"] != "/problems/method_not_allowed" {
		t.Fatalf("405 type: %v", r.body)
	}
}

func TestRequestIDIsEchoedOrMade(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequest("GET", h.srv.URL+"/healthz", nil)
	req.Header.Set("X-Request-ID", "trace-123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Request-ID"); got != "trace-123" {
		t.Fatalf("echoed id %q", got)
	}
	r := h.do("GET", "/v1/nowhere", "", "")
	if id := r.header.Get("X-Request-ID"); id == "" || r.body["request_id"] != id {
		t.Fatalf("made id %q, problem says %v", id, r.body["request_id"])
	}
}
