package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/guidepost/guidepost/internal/testkit"
)

// What an app team meets on day one, through the real binary: a refresh
// sent with the expired bearer works, a wrong password is not a dead
// session, CORS answers the app's origin, presigned URLs name
// S3_PUBLIC_ENDPOINT (and work there), and a lost upload is found again.
func TestDayOneThroughTheBinary(t *testing.T) {
	t.Parallel()
	cfg := testkit.S3Config(t)
	s := newMediaStack(t, cfg)
	internal, _ := url.Parse(cfg.Endpoint)
	public := "http://localhost:" + internal.Port()
	api := s.start("serve", "CORS_ALLOWED_ORIGINS=https://app.example.com", "S3_PUBLIC_ENDPOINT="+public)
	c := newMediaClient(t, api.URL)

	post := func(path, bearer, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest("POST", api.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		return resp, buf.Bytes()
	}
	resp, raw := post("/v1/auth/signup", "garbage-token", `{"email":"day1@example.com","password":"correct horse","display_name":"D"}`)
	var sess struct {
		RefreshToken string `json:"refresh_token"`
	}
	if resp.StatusCode != 201 || json.Unmarshal(raw, &sess) != nil {
		t.Fatalf("sign-up with a stale bearer: %d %s", resp.StatusCode, raw)
	}
	if resp, raw := post("/v1/auth/refresh", "garbage-token", `{"refresh_token":"`+sess.RefreshToken+`"}`); resp.StatusCode != 200 {
		t.Fatalf("refresh with a stale bearer: %d %s", resp.StatusCode, raw)
	}
	if resp, raw := post("/v1/auth/login", "", `{"email":"day1@example.com","password":"wrong horse"}`); resp.StatusCode != 401 ||
		!bytes.Contains(raw, []byte(`"type":"/problems/credentials"`)) {
		t.Fatalf("wrong password: %d %s", resp.StatusCode, raw)
	}

	req, _ := http.NewRequest("OPTIONS", api.URL+"/v1/uploads", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 204 ||
		resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Fatalf("preflight: %v %v", resp, err)
	}

	data := testPhoto(t, "photo.jpg")
	sum := sha256.Sum256(data)
	decl := map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(sum[:]), "content_type": "image/jpeg"}
	var up struct {
		ID    string `json:"id"`
		Parts []struct {
			URL string `json:"url"`
		} `json:"parts"`
	}
	if code, raw := c.call("POST", "/v1/uploads", decl, &up); code != 201 || len(up.Parts) != 1 || !strings.HasPrefix(up.Parts[0].URL, public+"/") {
		t.Fatalf("declare: %d %s", code, raw)
	}
	if resp, err := http.DefaultClient.Do(mustPut(t, up.Parts[0].URL, data)); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT at the public endpoint: %v %v", resp, err)
	}
	var again struct {
		ID string `json:"id"`
	}
	if code, raw := c.call("POST", "/v1/uploads", decl, &again); code != 200 || again.ID != up.ID {
		t.Fatalf("declared again: %d %s", code, raw)
	}
	var list struct {
		Items []struct {
			ID       string `json:"id"`
			Received []any  `json:"received"`
		} `json:"items"`
	}
	if code, raw := c.call("GET", "/v1/uploads", nil, &list); code != 200 || len(list.Items) != 1 || list.Items[0].ID != up.ID || len(list.Items[0].Received) != 1 {
		t.Fatalf("open uploads: %d %s", code, raw)
	}
}

func mustPut(t *testing.T, u string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest("PUT", u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}
