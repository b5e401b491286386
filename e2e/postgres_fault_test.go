package e2e

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// PostgreSQL going away (a crash, a failover) makes requests that need it
// answer 503 problem+json with Retry-After quickly, never a 500 with driver
// text and never a hang; /readyz names it; and the service recovers by
// itself when the database is back.
func TestPostgresOutageAnswers503AndRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private PostgreSQL")
	}
	pg := testkit.StartPostgres(t)
	env := append(stackEnv(t, testkit.RedisDBE2EFault), "DATABASE_URL="+pg.URL)
	migrate := exec.Command(testkit.Binary(t), "migrate")
	migrate.Env = append(migrate.Environ(), env...)
	if out, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	p := testkit.Start(t, env, freeAddr(t), "serve")

	token := guestToken(t, p.URL)
	paths := []string{"/v1/me", "/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=1000"}
	for _, path := range paths {
		if status, _, _ := authedGet(t, p.URL+path, token); status != 200 {
			t.Fatalf("before the outage %s: %d", path, status)
		}
	}

	pg.Stop()
	for _, path := range append(paths, "/v1/guides/nearby?lat=35.1796&lng=129.0756&radius_m=900") {
		start := time.Now()
		status, header, body := authedGet(t, p.URL+path, token)
		if status != 503 || header.Get("Retry-After") == "" || !strings.HasPrefix(header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("during the outage %s: %d %v %s", path, status, header, body)
		}
		if strings.Contains(strings.ToLower(body), "sqlstate") || strings.Contains(body, "dial") {
			t.Errorf("driver text leaked: %s", body)
		}
		if took := time.Since(start); took > 6*time.Second {
			t.Errorf("%s took %s to fail", path, took)
		}
	}
	req, _ := http.NewRequest("POST", p.URL+"/v1/guides", strings.NewReader(`{"title":"Outage","lat":37.5,"lng":127}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 503 {
		t.Errorf("a write during the outage: %v %v", resp.StatusCode, err)
	}
	// /readyz answers from a check at most a second old.
	for until := time.Now().Add(3 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		status, body := get(t, p.URL+"/readyz")
		if status == 503 && strings.Contains(body, `"postgres":"unavailable"`) {
			break
		}
		if time.Now().After(until) {
			t.Errorf("readyz during the outage: %d %s", status, body)
			break
		}
	}

	pg.Start()
	deadline := time.Now().Add(20 * time.Second)
	for _, path := range paths {
		for {
			status, _, body := authedGet(t, p.URL+path, token)
			if status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after the outage %s still answers %d: %s", path, status, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func guestToken(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Post(base+"/v1/auth/guest", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || s.AccessToken == "" {
		t.Fatalf("guest: %d %v", resp.StatusCode, err)
	}
	return s.AccessToken
}

func authedGet(t *testing.T, url, token string) (int, http.Header, string) {
	t.Helper()
	return do(t, "GET", url, token, "")
}

// do sends body (JSON, or none) with token and reads the whole answer.
func do(t *testing.T, method, url, token, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: 15 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, resp.Header, b.String()
}
