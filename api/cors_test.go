package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/guidepost/guidepost/api"
)

func corsRequest(t *testing.T, method, url, origin, token string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("Origin", origin)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// A listed origin may call every route with a bearer token; with "*" any
// other origin may make anonymous reads only. Preflights answer 204 on
// every /v1 route, whatever methods it has.
func TestCORS(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.CORS = api.CORS{Origins: []string{"https://app.example.com", "*"}}
	})
	guest := post(t, srv.URL, "/v1/auth/guest", "", "", "").body["access_token"].(string)
	const app, other = "https://app.example.com", "https://evil.example.net"
	preflight := func(origin, path, headers string) *http.Response {
		return corsRequest(t, "OPTIONS", srv.URL+path, origin, "",
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", headers)
	}
	for _, path := range []string{"/v1/guides", "/v1/uploads", "/v1/auth/refresh", "/v1/guides/0190/like", "/v1/events"} {
		r := preflight(app, path, "authorization, content-type, idempotency-key")
		if r.StatusCode != 204 || r.Header.Get("Access-Control-Allow-Origin") != app ||
			!strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "Authorization") ||
			!strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), "POST") ||
			r.Header.Get("Access-Control-Max-Age") == "" || r.Header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Fatalf("preflight of %s from the app: %d %v", path, r.StatusCode, r.Header)
		}
	}
	// Another origin: anonymous reads only, no Authorization, no credentials.
	r := preflight(other, "/v1/guides", "content-type")
	if r.StatusCode != 204 || r.Header.Get("Access-Control-Allow-Origin") != "*" ||
		strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "Authorization") || r.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("preflight from another origin: %d %v", r.StatusCode, r.Header)
	}
	r = corsRequest(t, "GET", srv.URL+"/v1/me", app, guest)
	if r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != app ||
		!strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "Retry-After") || !strings.Contains(r.Header.Get("Vary"), "Origin") {
		t.Fatalf("signed-in GET from the app: %d %v", r.StatusCode, r.Header)
	}
	for _, h := range []string{"ETag", "Retry-After", "RateLimit", "RateLimit-Policy", "Idempotent-Replayed", "Location"} {
		if !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), h) {
			t.Fatalf("%s is not exposed: %v", h, r.Header)
		}
	}
	if r := corsRequest(t, "GET", srv.URL+"/v1/me", other, guest); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("a signed-in answer readable by any origin: %v", r.Header)
	}
	if r := corsRequest(t, "GET", srv.URL+"/v1/problems-none", other, ""); r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("an anonymous answer from another origin: %v", r.Header)
	}
}

// Without CORS_ALLOWED_ORIGINS no origin gets a CORS header; a preflight
// still answers 204 (the browser then refuses the request).
func TestCORSOffByDefault(t *testing.T) {
	srv, _ := uploadServer(t, nil)
	r := corsRequest(t, "OPTIONS", srv.URL+"/v1/guides", "https://app.example.com", "", "Access-Control-Request-Method", "GET")
	if r.StatusCode != 204 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("%d %v", r.StatusCode, r.Header)
	}
	if r := corsRequest(t, "GET", srv.URL+"/v1/guides?bbox=1,1,2,2", "https://app.example.com", ""); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("%v", r.Header)
	}
}
