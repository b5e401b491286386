package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// The callers every route is tried with.
var callers = []string{"anonymous", "owner", "other user", "expired token", "alg none", "wrong key", "deleted user"}

// matrixRow is one route: how to call it, and the status each caller gets
// (in the order of callers).
type matrixRow struct {
	route string // METHOD /template, as the router lists it
	call  func(t *testing.T, token string) (method, path, contentType string, body io.Reader)
	want  [7]int
}

// Every route against every kind of caller: a route added without a row
// fails here. A token that is expired, unsigned (alg none), signed with
// another key, or names an account that no longer exists is 401 on every
// /v1 route, public ones included; the operational routes ignore tokens.
func TestAuthorisationMatrix(t *testing.T) {
	ctx := context.Background()
	f := newFullStack(t)
	h, s, db, secret, clock := f.harness, f.server, f.db, f.secret, guidepost.SystemClock{}
	signup := func(email string) (id, token string) { return f.signup(email) }
	ownerID, owner := signup("owner@example.com")
	_, other := signup("other@example.com")
	// The owner moderates too: the moderation rows tell a moderator from
	// another user.
	if _, err := db.Pool.Exec(ctx, `UPDATE users SET moderator = true WHERE id = $1`, ownerID); err != nil {
		t.Fatal(err)
	}
	goneID, gone := signup("gone@example.com")
	targetID, _ := signup("target@example.com")
	if _, err := db.Pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, goneID); err != nil {
		t.Fatal(err)
	}
	past := &fixedClock{time.Now().Add(-2 * time.Hour)}
	expired, _ := auth.NewTokens(secret, time.Hour, past).Issue(ownerID, noSession)
	wrongKey, _ := auth.NewTokens(strings.Repeat("w", 32), time.Hour, clock).Issue(ownerID, noSession)
	tokens := []string{"", owner, other, expired, algNone(ownerID), wrongKey, gone}

	upload := func() (string, io.Reader) { return photoForm(t) }
	ct, body := upload()
	mediaID := h.doRaw("POST", "/v1/media", owner, ct, body, 202)["id"].(string)
	newGuide := func() string {
		return h.doRaw("POST", "/v1/guides", owner, "application/json",
			strings.NewReader(`{"title":"t","lat":37.5,"lng":127}`), 201)["id"].(string)
	}
	guideID := newGuide()
	n := 0
	unique := func() int { n++; return n }

	// A direct upload of the owner's, with a SHA-256 no photo has.
	newUpload := func() string {
		return fmt.Sprintf(`{"bytes":1000,"sha256":"%064x","content_type":"image/jpeg"}`, unique())
	}
	uploadID := h.doRaw("POST", "/v1/uploads", owner, "application/json", strings.NewReader(newUpload()), 201)["id"].(string)

	get := func(path string) func(*testing.T, string) (string, string, string, io.Reader) {
		return func(*testing.T, string) (string, string, string, io.Reader) { return "GET", path, "", nil }
	}
	jsonCall := func(method string, path func() string, body func() string) func(*testing.T, string) (string, string, string, io.Reader) {
		return func(*testing.T, string) (string, string, string, io.Reader) {
			return method, path(), "application/json", strings.NewReader(body())
		}
	}
	fixed := func(s string) func() string { return func() string { return s } }
	const (
		ok, created, accepted, noContent = 200, 201, 202, 204
		unauth, forbidden                = 401, 403
		notFound, conflict               = 404, 409
		unavailable                      = 503
	)
	bad := [4]int{unauth, unauth, unauth, unauth}
	row := func(anon, own, oth int) [7]int { return [7]int{anon, own, oth, bad[0], bad[1], bad[2], bad[3]} }
	public := [7]int{ok, ok, ok, ok, ok, ok, ok} // tokens are not even read
	// The routes that open a session ignore any bearer token: a client
	// refreshing because its token died sends that token along.
	credentials := func(want int) [7]int { return [7]int{want, want, want, want, want, want, want} }

	rows := []matrixRow{
		{"GET /healthz", get("/healthz"), public},
		{"GET /readyz", get("/readyz"), public},
		{"GET /metrics", get("/metrics"), public},
		{"GET /openapi.yaml", get("/openapi.yaml"), public},
		{"GET /map", get("/map"), public},
		{"GET /map/:file", get("/map/map.js"), public},
		{"GET /map/vendor/:file", get("/map/vendor/maplibre-gl.css"), public},
		{"GET /problems", get("/problems"), public},
		{"GET /problems/:type", get("/problems/invalid"), public},
		{"POST /v1/auth/signup", jsonCall("POST", fixed("/v1/auth/signup"), func() string {
			return fmt.Sprintf(`{"email":"u%d@example.com","password":"correct horse","display_name":"u"}`, unique())
		}), credentials(created)},
		{"POST /v1/auth/login", jsonCall("POST", fixed("/v1/auth/login"), fixed(`{"email":"owner@example.com","password":"correct horse"}`)),
			credentials(ok)},
		{"POST /v1/auth/guest", jsonCall("POST", fixed("/v1/auth/guest"), fixed(`{}`)), credentials(created)},
		{"GET /v1/me", get("/v1/me"), row(unauth, ok, ok)},
		{"PATCH /v1/me", jsonCall("PATCH", fixed("/v1/me"), fixed(`{"display_name":"renamed"}`)), row(unauth, ok, ok)},
		{"GET /v1/me/guides", get("/v1/me/guides"), row(unauth, ok, ok)},
		{"GET /v1/me/media", get("/v1/me/media"), row(unauth, ok, ok)},
		{"GET /v1/me/blocks", get("/v1/me/blocks"), row(unauth, ok, ok)},
		{"PUT /v1/me/blocks/:user_id", func(*testing.T, string) (string, string, string, io.Reader) {
			return "PUT", "/v1/me/blocks/" + targetID, "", nil
		}, row(unauth, ok, ok)},
		{"DELETE /v1/me/blocks/:user_id", func(*testing.T, string) (string, string, string, io.Reader) {
			return "DELETE", "/v1/me/blocks/" + targetID, "", nil
		}, row(unauth, noContent, noContent)},
		{"GET /v1/media", get("/v1/media?ids=" + mediaID), row(ok, ok, ok)},
		// The owner's bytes again are the same photo (200); another user's a new one (202).
		{"POST /v1/media", func(*testing.T, string) (string, string, string, io.Reader) {
			ct, body := upload()
			return "POST", "/v1/media", ct, body
		}, row(unauth, ok, accepted)},
		{"GET /v1/media/:id", get("/v1/media/" + mediaID), row(ok, ok, ok)},
		// Public as the photo is; still pending here, so 409 for everyone.
		{"GET /v1/media/:id/:variant", get("/v1/media/" + mediaID + "/marker.jpg"), row(conflict, conflict, conflict)},
		{"POST /v1/guides", jsonCall("POST", fixed("/v1/guides"), fixed(`{"title":"t","lat":37.5,"lng":127}`)), row(unauth, created, created)},
		{"GET /v1/guides", get("/v1/guides?bbox=126,37,128,38"), row(ok, ok, ok)},
		{"GET /v1/guides/nearby", get("/v1/guides/nearby?lat=37.5&lng=127"), row(ok, ok, ok)},
		{"GET /v1/guides/clusters", get("/v1/guides/clusters?bbox=126,37,128,38&zoom=8"), row(ok, ok, ok)},
		{"GET /v1/tiles/:z/:x/:y", get("/v1/tiles/10/873/396.mvt"), row(ok, ok, ok)},
		{"GET /v1/guides/:id", get("/v1/guides/" + guideID), row(ok, ok, ok)},
		{"PATCH /v1/guides/:id", jsonCall("PATCH", fixed("/v1/guides/"+guideID), fixed(`{"title":"renamed"}`)), row(unauth, ok, forbidden)},
		{"DELETE /v1/guides/:id", func(*testing.T, string) (string, string, string, io.Reader) {
			return "DELETE", "/v1/guides/" + newGuide(), "", nil
		}, row(unauth, noContent, forbidden)},
		{"PUT /v1/guides/:id/like", func(*testing.T, string) (string, string, string, io.Reader) {
			return "PUT", "/v1/guides/" + guideID + "/like", "", nil
		}, row(unauth, ok, ok)},
		{"DELETE /v1/guides/:id/like", func(*testing.T, string) (string, string, string, io.Reader) {
			return "DELETE", "/v1/guides/" + guideID + "/like", "", nil
		}, row(unauth, ok, ok)},
		{"POST /v1/auth/refresh", func(*testing.T, string) (string, string, string, io.Reader) {
			r := h.do("POST", "/v1/auth/guest", "", `{}`)
			return "POST", "/v1/auth/refresh", "application/json",
				strings.NewReader(`{"refresh_token":"` + r.body["refresh_token"].(string) + `"}`)
		}, credentials(ok)},
		{"POST /v1/auth/logout", jsonCall("POST", fixed("/v1/auth/logout"), fixed(`{}`)), row(unauth, noContent, noContent)},
		{"POST /v1/auth/password", jsonCall("POST", fixed("/v1/auth/password"),
			fixed(`{"current_password":"correct horse","new_password":"another horse"}`)), row(unauth, ok, ok)},
		{"POST /v1/auth/upgrade", jsonCall("POST", fixed("/v1/auth/upgrade"), func() string {
			return fmt.Sprintf(`{"email":"up%d@example.com","password":"correct horse","display_name":"u"}`, unique())
		}), row(unauth, ok, ok)},
		// Each call deletes a photo the owner has just uploaded: the owner's
		// own (204), and another user may not (403).
		{"DELETE /v1/media/:id", func(*testing.T, string) (string, string, string, io.Reader) {
			ct, body := upload()
			status, _, raw := h.send("POST", "/v1/media", owner, ct, body)
			var m map[string]any
			if (status != ok && status != accepted) || json.Unmarshal(raw, &m) != nil {
				t.Fatalf("upload: %d %s", status, raw)
			}
			return "DELETE", "/v1/media/" + m["id"].(string), "", nil
		}, row(unauth, noContent, forbidden)},
		{"POST /v1/uploads", jsonCall("POST", fixed("/v1/uploads"), newUpload), row(unauth, created, created)},
		{"GET /v1/uploads", get("/v1/uploads"), row(unauth, ok, ok)},
		{"GET /v1/uploads/:id", func(*testing.T, string) (string, string, string, io.Reader) {
			return "GET", "/v1/uploads/" + uploadID, "", nil
		}, row(unauth, ok, notFound)},
		// No part was sent: the owner hears which are missing.
		{"POST /v1/uploads/:id/complete", func(*testing.T, string) (string, string, string, io.Reader) {
			return "POST", "/v1/uploads/" + uploadID + "/complete", "", nil
		}, row(unauth, conflict, notFound)},
		{"DELETE /v1/uploads/:id", func(*testing.T, string) (string, string, string, io.Reader) {
			return "DELETE", "/v1/uploads/" + uploadID, "", nil
		}, row(unauth, noContent, notFound)},
		{"DELETE /v1/me", func(*testing.T, string) (string, string, string, io.Reader) {
			return "DELETE", "/v1/me", "", nil
		}, row(unauth, accepted, accepted)},
		// Streams are not wired here (a 200 would never end): what counts is
		// that every bad token is refused first. events_test.go streams.
		{"GET /v1/events", get("/v1/events"), row(unauth, unavailable, unavailable)},
		{"GET /v1/about", get("/v1/about"), row(ok, ok, ok)},
		// The owner may not report their own guide (422); anyone else may.
		{"POST /v1/reports", jsonCall("POST", fixed("/v1/reports"), func() string {
			return `{"target_type":"guide","target_id":"` + guideID + `","reason":"spam"}`
		}), row(unauth, 422, accepted)},
		{"GET /v1/me/reports", get("/v1/me/reports"), row(unauth, ok, ok)},
		{"GET /v1/moderation/reports", get("/v1/moderation/reports"), row(unauth, ok, forbidden)},
		{"POST /v1/moderation/actions", jsonCall("POST", fixed("/v1/moderation/actions"), func() string {
			return `{"action":"dismiss","target_type":"guide","target_id":"` + guideID + `","reason":"fine"}`
		}), row(unauth, ok, forbidden)},
		{"GET /v1/moderation/audit", get("/v1/moderation/audit"), row(unauth, ok, forbidden)},
		{"POST /v1/events/ticket", jsonCall("POST", fixed("/v1/events/ticket"), fixed(``)), row(unauth, unavailable, unavailable)},
	}

	routed := map[string]bool{}
	for _, r := range s.Routes() {
		routed[r.Method+" "+r.Path] = true
	}
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.route] = true
		if !routed[r.route] {
			t.Errorf("the matrix has a row for %s, which is not a route", r.route)
		}
	}
	for route := range routed {
		if !covered[route] {
			t.Errorf("route %s has no row in the authorisation matrix", route)
		}
	}
	v1 := regexp.MustCompile(`^/v1/`)
	// Routes that spend the caller's session or account get, in the owner
	// and other-user columns, a token of a fresh account of their own (a
	// guest for the upgrade), so the rows after them keep theirs.
	freshUser := func() string { _, tok := signup(fmt.Sprintf("fresh%d@example.com", unique())); return tok }
	freshGuest := func() string { return h.do("POST", "/v1/auth/guest", "", `{}`).body["access_token"].(string) }
	fresh := map[string]func() string{
		"POST /v1/auth/logout": freshUser, "POST /v1/auth/password": freshUser,
		"POST /v1/auth/upgrade": freshGuest, "DELETE /v1/me": freshUser,
	}
	for _, r := range rows {
		for i, token := range tokens {
			if f := fresh[r.route]; f != nil && (i == 1 || i == 2) {
				token = f()
			}
			method, path, ct, body := r.call(t, token)
			status, _, b := h.send(method, path, token, ct, body)
			raw := string(b)
			if status != r.want[i] {
				t.Errorf("%s as %s: %d, want %d: %s", r.route, callers[i], status, r.want[i], raw)
			}
			// An expired token has its own type, so an app knows to
			// refresh; a forged one must never be mistaken for it.
			wantType := `"type":"/problems/unauthorized"`
			if callers[i] == "expired token" {
				wantType = `"type":"/problems/token_expired"`
			}
			if status == unauth && v1.MatchString(path) && !strings.Contains(raw, wantType) {
				t.Errorf("%s as %s: a 401 that is not a %s problem: %s", r.route, callers[i], wantType, raw)
			}
		}
	}
}

// acceptDeletes stands in for the account service, whose background purge
// is tested in auth/deletion/ and e2e/: here only who may ask matters.
type acceptDeletes struct{}

func (acceptDeletes) Delete(context.Context, string) error { return nil }

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

// noSession is a well-formed session id no session has: the tokens signed
// with it here are refused for their key or their age before any lookup.
const noSession = "01900000-0000-7000-8000-000000000000"

// algNone is an unsigned token naming userID, as an attacker would forge.
func algNone(userID string) string {
	enc := base64.RawURLEncoding.EncodeToString
	now := time.Now().Unix()
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		enc([]byte(fmt.Sprintf(`{"iss":"guidepost","sub":%q,"iat":%d,"exp":%d}`, userID, now, now+3600))) + "."
}

// send makes one request and returns the status, headers and body.
func (h *harness) send(method, path, token, contentType string, body io.Reader) (int, http.Header, []byte) {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.srv.URL+path, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

// doRaw sends a request that must answer want, and returns its JSON body.
func (h *harness) doRaw(method, path, token, contentType string, body io.Reader, want int) map[string]any {
	h.t.Helper()
	status, _, raw := h.send(method, path, token, contentType, body)
	var out map[string]any
	if status != want || json.Unmarshal(raw, &out) != nil {
		h.t.Fatalf("%s %s: %d %s", method, path, status, raw)
	}
	return out
}
