package api_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoHits reads guidepost_answer_memo_hits_total from the process.
func memoHits(t *testing.T, h *harness) int {
	t.Helper()
	_, _, body := h.send("GET", "/metrics", "", "", nil)
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "guidepost_answer_memo_hits_total "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return int(n)
		}
	}
	t.Fatal("no guidepost_answer_memo_hits_total in /metrics")
	return 0
}

// A list answer asked again in its version is the kept bytes; a new guide
// in the area changes the version and the next answer shows it; a
// signed-in caller's list (their own likes) is never kept.
func TestListAnswersKeptByVersion(t *testing.T) {
	_, h := threeGuidesAtCityHall(t, time.Hour)
	for _, path := range []string{"/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000", "/v1/guides?bbox=126.95,37.55,127.0,37.58"} {
		if left := time.Until(time.Now().Truncate(5 * time.Minute).Add(5 * time.Minute)); left < 3*time.Second {
			time.Sleep(left + 100*time.Millisecond) // both in one window of cursor issue times
		}
		hits := memoHits(t, h)
		s1, h1, b1 := h.send("GET", path, "", "", nil)
		s2, h2, b2 := h.send("GET", path, "", "", nil)
		if s1 != 200 || s2 != 200 || h1.Get("ETag") == "" || h2.Get("ETag") != h1.Get("ETag") || string(b1) != string(b2) ||
			h2.Get("Cache-Control") != "public, no-cache" || !strings.Contains(h2.Get("Vary"), "Authorization") {
			t.Fatalf("GET %s twice: %d %v %s / %d %v %s", path, s1, h1, b1, s2, h2, b2)
		}
		if got := memoHits(t, h) - hits; got != 1 {
			t.Fatalf("GET %s twice: %d answers from the memo, want 1", path, got)
		}
	}

	_, token := signupGuest(t, h)
	path := "/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000"
	_, old, _ := h.send("GET", path, "", "", nil)
	id := h.doRaw("POST", "/v1/guides", token, "application/json",
		strings.NewReader(`{"title":"new","lat":37.56651,"lng":126.97801}`), 201)["id"].(string)
	deadline := time.Now().Add(2 * time.Second)
	for {
		_, header, body := h.send("GET", path, "", "", nil)
		if header.Get("ETag") != old.Get("ETag") {
			if !strings.Contains(string(body), id) {
				t.Fatalf("a new version without the new guide: %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the version did not change within 2 s of a new guide")
		}
		time.Sleep(10 * time.Millisecond)
	}

	hits := memoHits(t, h)
	for range 3 {
		if s, header, _ := h.send("GET", path, token, "", nil); s != 200 || header.Get("ETag") != "" {
			t.Fatalf("a signed-in caller's list: %d, ETag %q", s, header.Get("ETag"))
		}
	}
	if got := memoHits(t, h) - hits; got != 0 {
		t.Fatalf("%d signed-in answers came from the memo", got)
	}
}
