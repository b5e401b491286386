package api_test

import (
	"strings"
	"testing"
)

// A query string that does not parse is a 400 naming the parameter, on
// every /v1 route, instead of the pair being dropped silently.
func TestQueryStringsThatDoNotParseAreRefused(t *testing.T) {
	h := newHarness(t)
	for path, field := range map[string]string{
		"/v1/guides/nearby?lat=10&lng=10&cursor=AAAA%%%%": "cursor",
		"/v1/guides/nearby?lat=10&lng=10&tag=%FF":         "tag",
		"/v1/guides?bbox=1,2,3,4&li%zzmit=3":              "li%zzmit",
		"/v1/guides/clusters?zoom=3;bbox=1,2,3,4":         "zoom",
		"/v1/me?x=%":          "x",
		"/v1/media/abc?a=%G1": "a",
	} {
		problem(t, h.do("GET", path, "", ""), 400, field)
	}
}

// NUL, control and bidirectional control characters in an email or a
// display name are a 400 naming the field, never a 500 from PostgreSQL.
func TestUnsafeCharactersInAccountsAreRefused(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct{ body, field string }{
		{`{"email":"a\u0000@example.com","password":"12345678","display_name":"A"}`, "email"},
		{`{"email":"a\u202e@example.com","password":"12345678","display_name":"A"}`, "email"},
		{`{"email":"a@example.com","password":"12345678","display_name":"A\u0000"}`, "display_name"},
		{`{"email":"a@example.com","password":"12345678","display_name":"A\u001b[31m"}`, "display_name"},
		{`{"email":"a@example.com","password":"12345678","display_name":"evil\u202egnp.exe"}`, "display_name"},
		{`{"email":"a@example.com","password":"12345678","display_name":"\u2066A"}`, "display_name"},
	} {
		problem(t, h.do("POST", "/v1/auth/signup", "", tc.body), 400, tc.field)
	}
	problem(t, h.do("POST", "/v1/auth/login", "", `{"email":"a\u0000@example.com","password":"12345678"}`), 400, "email")
	problem(t, h.do("POST", "/v1/auth/login", "", `{"email":"`+strings.Repeat("a", 300)+`@example.com","password":"12345678"}`), 400, "email")
	// Scripts and emoji sequences with joiners are still names.
	r := h.do("POST", "/v1/auth/signup", "", `{"email":"b@example.com","password":"12345678","display_name":"서울 👩\u200d👩\u200d👧"}`)
	if r.status != 201 {
		t.Fatalf("a Korean name with an emoji family: %d %v", r.status, r.body)
	}
}
