package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/idempotency"
	"github.com/guidepost/guidepost/media"
)

// upload sends a photo and returns its id (the answer checked like any).
func (c *contract) upload(token, file string) string {
	c.t.Helper()
	data, err := os.ReadFile("../testdata/photos/" + file)
	if err != nil {
		c.t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", file)
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest("POST", c.srv.URL+"/v1/media", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	a := c.send(req)
	var m struct{ ID string }
	if a.status != 202 || json.Unmarshal(a.raw, &m) != nil {
		c.t.Fatalf("upload: %d %s", a.status, a.raw)
	}
	return m.ID
}

func (c *contract) newGuide(token string, body map[string]any) string {
	c.t.Helper()
	a := c.call("POST", "/v1/guides", token, body)
	var g struct{ ID string }
	if a.status != 201 {
		c.t.Fatalf("create: %d %s", a.status, a.raw)
	}
	a.json(c.t, &g)
	return g.ID
}

// A list item carries its author, photo count and cover; a viewer sees
// their own like and unlike in every list at once, although the shared
// lists (here polled once an hour) still show the old count to others.
func TestListItemsShowTheViewersOwnLikesAtOnce(t *testing.T) {
	c := newContract(t)
	aliceID, alice := c.guest()
	_, bob := c.guest()
	photo := c.upload(alice, "photo.jpg")
	id := c.newGuide(alice, map[string]any{"title": "Bukchon 카페", "lat": 37.5826, "lng": 126.9836, "media_ids": []string{photo}})
	const near = "/v1/guides/nearby?lat=37.5826&lng=126.9836&radius_m=50"
	const box = "/v1/guides?bbox=126.98,37.58,126.99,37.59"
	for range 2 { // the second answer comes from the warm tiles
		c.list(near, bob)
		time.Sleep(50 * time.Millisecond)
	}
	one := func(path, token string) listItem {
		t.Helper()
		p := c.list(path, token)
		if len(p.Items) != 1 || p.Items[0].ID != id {
			t.Fatalf("GET %s: %+v", path, p)
		}
		return p.Items[0]
	}
	if v := c.call("GET", near, bob, nil).header.Values("Vary"); !slices.Contains(v, "Authorization") {
		t.Errorf("a list answer that depends on the caller varies by %v", v)
	}
	it := one(near, bob)
	if it.Author.ID != aliceID || it.Author.DisplayName == "" || it.PhotoCount != 1 || it.Cover == nil ||
		it.Cover.ID != photo || it.Cover.Status != "pending" || it.LikedByMe || it.LikeCount != 0 {
		t.Fatalf("item %+v", it)
	}
	var st struct {
		LikedByMe bool  `json:"liked_by_me"`
		LikeCount int64 `json:"like_count"`
	}
	c.call("PUT", "/v1/guides/"+id+"/like", bob, nil).json(t, &st)
	if !st.LikedByMe || st.LikeCount != 1 {
		t.Fatalf("like: %+v", st)
	}
	for _, path := range []string{near, box, near + "&q=카페"} {
		if it := one(path, bob); !it.LikedByMe || it.LikeCount != 1 {
			t.Errorf("GET %s right after the like: %+v", path, it)
		}
		if it := one(path, alice); it.LikedByMe || it.LikeCount != 1 {
			t.Errorf("GET %s as the author: %+v", path, it)
		}
	}
	if it := one(near, ""); it.LikedByMe || it.LikeCount != 0 {
		t.Errorf("anonymous: %+v; the shared list was expected to lag (poll an hour away)", it)
	}
	c.call("DELETE", "/v1/guides/"+id+"/like", bob, nil).json(t, &st)
	if it := one(near, bob); it.LikedByMe || it.LikeCount != 0 {
		t.Errorf("right after the unlike: %+v", it)
	}
}

// A ready cover in a list has the photo's size and the thumbnail's URL,
// the same as the photo's own answer. With presigned URLs that is the one
// URL a list affords (each has its own ~400-byte signature): the marker
// is its short API path, which redirects (302, as documented) to the
// marker URL the photo's own answer gives.
func TestAReadyCoverCarriesItsSize(t *testing.T) {
	c := newContract(t)
	_, alice := c.guest()
	photo := c.upload(alice, "photo.jpg")
	if err := c.media.Derive(context.Background(), media.DeriveTask{MediaID: photo}); err != nil {
		t.Fatal(err)
	}
	c.newGuide(alice, map[string]any{"title": "Ready", "lat": 37.5826, "lng": 126.9836, "media_ids": []string{photo}})
	var m struct {
		URLs struct{ Thumbnail, Marker string } `json:"urls"`
	}
	c.call("GET", "/v1/media/"+photo, alice, nil).json(t, &m)
	type cover struct {
		ID            string `json:"id"`
		Width, Height int
		URLs          struct {
			Thumbnail, Marker string
			Formats           []string
		} `json:"urls"`
	}
	for _, path := range []string{"/v1/guides/nearby?lat=37.5826&lng=126.9836&radius_m=50", "/v1/guides?bbox=126.98,37.58,126.99,37.59", "/v1/me/guides"} {
		for range 2 { // the second answer comes from the warm tiles
			var page struct {
				Items []struct{ Cover *cover } `json:"items"`
			}
			c.call("GET", path, alice, nil).json(t, &page)
			if len(page.Items) != 1 || page.Items[0].Cover == nil {
				t.Fatalf("GET %s: %+v", path, page)
			}
			got := *page.Items[0].Cover
			if got.ID != photo || got.Width != 640 || got.Height != 480 || got.URLs.Thumbnail != m.URLs.Thumbnail ||
				got.URLs.Thumbnail == "" || got.URLs.Marker != "/v1/media/"+photo+"/marker.jpg" ||
				strings.Join(got.URLs.Formats, ",") != "jpeg,webp" || m.URLs.Marker == "" {
				t.Errorf("GET %s: cover %+v; the photo's URLs %+v", path, got, m.URLs)
			}
		}
	}
	req, _ := http.NewRequest("GET", c.srv.URL+"/v1/media/"+photo+"/marker.jpg", nil)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.check(req, resp.StatusCode, resp.Header, raw)
	if resp.StatusCode != 302 || resp.Header.Get("Location") != m.URLs.Marker || !strings.HasPrefix(resp.Header.Get("Cache-Control"), "private, max-age=") {
		t.Errorf("marker path: %d, Location %q, Cache-Control %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Cache-Control"))
	}
	for file, status := range map[string]int{"huge.png": 400, "small.avif": 404} {
		if a := c.call("GET", "/v1/media/"+photo+"/"+file, "", nil); a.status != status || !bytes.Contains(a.raw, []byte(`"field":"variant"`)) {
			t.Errorf("%s: %d %s", file, a.status, a.raw)
		}
	}
}

// POST /v1/guides under an Idempotency-Key: a retry replays, another body
// is 422, one while the first runs is 409; each key makes one guide.
func TestGuideCreationHonoursIdempotencyKey(t *testing.T) {
	c := newContract(t)
	aliceID, alice := c.guest()
	body := map[string]any{"title": "Once", "lat": 37.5, "lng": 127.0, "tags": []string{"food"}}
	first := c.call("POST", "/v1/guides", alice, body, "Idempotency-Key", "k-1")
	again := c.call("POST", "/v1/guides", alice, map[string]any{"tags": []string{"food"}, "lng": 127.0, "lat": 37.5, "title": "Once"},
		"Idempotency-Key", "k-1")
	var g1, g2 struct{ ID string }
	first.json(t, &g1)
	again.json(t, &g2)
	if first.status != 201 || again.status != 201 || g1.ID != g2.ID || again.header.Get("Idempotent-Replayed") != "true" ||
		first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("replay: %d %s / %d %s %v", first.status, first.raw, again.status, again.raw, again.header)
	}
	if a := c.call("POST", "/v1/guides", alice, map[string]any{"title": "Other", "lat": 37.5, "lng": 127.0},
		"Idempotency-Key", "k-1"); a.status != 422 || !strings.Contains(string(a.raw), idempotency.Header) {
		t.Fatalf("another body: %d %s", a.status, a.raw)
	}
	// A first request still running holds its key: k-1's record, as it
	// was while its request ran.
	if _, err := c.db.Pool.Exec(context.Background(), `UPDATE idempotency_keys SET state = 'in_flight', updated_at = now()
		WHERE owner_id = $1 AND key = 'k-1'`, aliceID); err != nil {
		t.Fatal(err)
	}
	if a := c.call("POST", "/v1/guides", alice, body, "Idempotency-Key", "k-1"); a.status != 409 {
		t.Fatalf("in flight: %d %s", a.status, a.raw)
	}
	if a := c.call("POST", "/v1/guides", alice, body, "Idempotency-Key", "bad key"); a.status != 400 {
		t.Fatalf("a key with a space: %d %s", a.status, a.raw)
	}
	// A failed request frees its key.
	if a := c.call("POST", "/v1/guides", alice, map[string]any{"title": "", "lat": 37.5, "lng": 127.0},
		"Idempotency-Key", "k-3"); a.status != 400 {
		t.Fatalf("invalid: %d %s", a.status, a.raw)
	}
	c.newGuideKeyed(alice, body, "k-3")
	// Keys are per account: Bob's k-1 is his own.
	_, bob := c.guest()
	if a := c.call("POST", "/v1/guides", bob, body, "Idempotency-Key", "k-1"); a.status != 201 || a.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("another account's key: %d %v", a.status, a.header)
	}
	var n int
	c.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM guides WHERE author_id = $1`, aliceID).Scan(&n)
	if n != 2 {
		t.Fatalf("%d guides for 3 keyed creations (one replay)", n)
	}
}

func (c *contract) newGuideKeyed(token string, body map[string]any, key string) {
	c.t.Helper()
	if a := c.call("POST", "/v1/guides", token, body, "Idempotency-Key", key); a.status != 201 || a.header.Get("Idempotent-Replayed") != "" {
		c.t.Fatalf("create with a freed key: %d %s", a.status, a.raw)
	}
}

// The caller's own guides and photos, newest first, page by page; a
// rename shows in every list.
func TestMineListsAndRename(t *testing.T) {
	c := newContract(t)
	aliceID, alice := c.guest()
	_, bob := c.guest()
	var want []string
	for i := range 5 {
		want = append(want, c.newGuide(alice, map[string]any{"title": fmt.Sprint("mine ", i), "lat": 36.0 + float64(i)*0.001, "lng": 127.0}))
	}
	c.newGuide(bob, map[string]any{"title": "theirs", "lat": 36.0, "lng": 127.0})
	slices.Reverse(want)
	if got := c.walk("/v1/me/guides?limit=2", alice); !slices.Equal(got, want) {
		t.Fatalf("my guides %v, want %v", got, want)
	}
	if a := c.call("GET", "/v1/me/guides?cursor=nope", alice, nil); a.status != 400 {
		t.Fatalf("forged cursor: %d", a.status)
	}
	if a := c.call("GET", "/v1/me/guides", "", nil); a.status != 401 {
		t.Fatalf("anonymous: %d", a.status)
	}
	photos := []string{c.upload(alice, "photo.jpg"), c.upload(alice, "orient-6.jpg")}
	var page struct {
		Items []struct {
			ID     string  `json:"id"`
			SHA256 *string `json:"sha256"`
		} `json:"items"`
		NextCursor *string `json:"next_cursor"`
	}
	c.call("GET", "/v1/me/media?limit=1", alice, nil).json(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != photos[1] || page.Items[0].SHA256 == nil || page.NextCursor == nil {
		t.Fatalf("my media, first page: %+v", page)
	}
	c.call("GET", "/v1/me/media?limit=1&cursor="+*page.NextCursor, alice, nil).json(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != photos[0] {
		t.Fatalf("my media, second page: %+v", page)
	}
	c.call("GET", "/v1/me/media", bob, nil).json(t, &page)
	if len(page.Items) != 0 || page.NextCursor != nil {
		t.Fatalf("bob's media: %+v", page)
	}

	near := "/v1/guides/nearby?lat=36.0&lng=127.0&radius_m=1000&limit=100"
	c.list(near, "")
	if a := c.call("PATCH", "/v1/me", alice, map[string]any{"display_name": "  "}); a.status != 400 || !strings.Contains(string(a.raw), "display_name") {
		t.Fatalf("blank name: %d %s", a.status, a.raw)
	}
	var u struct {
		DisplayName string `json:"display_name"`
	}
	c.call("PATCH", "/v1/me", alice, map[string]any{"display_name": " Alice 앨리스 "}).json(t, &u)
	if u.DisplayName != "Alice 앨리스" {
		t.Fatalf("rename: %+v", u)
	}
	c.call("PATCH", "/v1/me", alice, map[string]any{}).json(t, &u)
	if u.DisplayName != "Alice 앨리스" {
		t.Fatalf("empty patch: %+v", u)
	}
	renamed := func() bool {
		for _, it := range c.list(near, "").Items {
			if it.Author.ID == aliceID && it.Author.DisplayName != "Alice 앨리스" {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(time.Second); !renamed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the lists still show the old name a second after the rename")
		}
	}
}

// GET /v1/media?ids=: several photos, each as its own GET shows it.
func TestMediaBatch(t *testing.T) {
	c := newContract(t)
	_, alice := c.guest()
	_, bob := c.guest()
	p := c.upload(alice, "photo.jpg")
	missing := uuid.NewString()
	var b struct {
		Items []struct {
			ID     string  `json:"id"`
			SHA256 *string `json:"sha256"`
		} `json:"items"`
		NotFound []string `json:"not_found"`
	}
	ids := "/v1/media?ids=" + missing + "," + p + "," + p
	c.call("GET", ids, bob, nil).json(t, &b)
	if len(b.Items) != 1 || b.Items[0].ID != p || b.Items[0].SHA256 != nil || !slices.Equal(b.NotFound, []string{missing}) {
		t.Fatalf("as another user: %+v", b)
	}
	c.call("GET", ids, alice, nil).json(t, &b)
	if len(b.Items) != 1 || b.Items[0].SHA256 == nil {
		t.Fatalf("as the owner: %+v", b)
	}
	many := strings.Repeat(p+",", 100) + p
	for _, bad := range []string{"/v1/media?ids=nope", "/v1/media", "/v1/media?ids=" + many, "/v1/media?id=" + p} {
		if a := c.call("GET", bad, "", nil); a.status != 400 {
			t.Errorf("GET %s: %d %s", bad, a.status, a.raw)
		}
	}
}

// A viewport pages with next_cursor like nearby, through every guide once;
// q narrows both lists to the guides holding every word.
func TestViewportPagesAndTextSearch(t *testing.T) {
	c := newContract(t)
	_, alice := c.guest()
	var all, cafes []string
	for i := range 7 {
		title := fmt.Sprint("Spot ", i)
		if i%2 == 0 {
			title = fmt.Sprint("조용한 카페 ", i)
		}
		id := c.newGuide(alice, map[string]any{"title": title, "body": "Good coffee.", "lat": 35.0 + float64(i)*0.001, "lng": 128.0})
		all = append(all, id)
		if i%2 == 0 {
			cafes = append(cafes, id)
		}
	}
	slices.Reverse(all)
	slices.Reverse(cafes)
	box := "/v1/guides?bbox=127.99,34.99,128.01,35.01&limit=3"
	if got := c.walk(box, alice); !slices.Equal(got, all) {
		t.Fatalf("viewport walk %v, want %v", got, all)
	}
	if got := c.walk(box+"&q=카페", ""); !slices.Equal(got, cafes) {
		t.Fatalf("viewport q=카페 %v, want %v", got, cafes)
	}
	got := c.walk("/v1/guides/nearby?lat=35.0&lng=128.0&radius_m=5000&limit=2&q=카페", "")
	slices.Reverse(got) // nearest first: the southernmost, the oldest
	if !slices.Equal(got, cafes) {
		t.Fatalf("nearby q=카페 %v, want %v", got, cafes)
	}
	if p := c.list("/v1/guides/nearby?lat=35.0&lng=128.0&radius_m=5000&q=coffee%20nothing", ""); len(p.Items) != 0 {
		t.Fatalf("every word is required: %+v", p)
	}
	first := c.list(box, "")
	for _, bad := range []string{
		"/v1/guides?bbox=127.99,34.99,128.02,35.01&limit=3&cursor=" + *first.NextCursor, // another viewport
		box + "&q=카페&cursor=" + *first.NextCursor,                                       // another search
		"/v1/guides/nearby?lat=35&lng=128&q=" + strings.Repeat("a", 101),
		"/v1/guides/nearby?lat=35&lng=128&q=%21%21",
		"/v1/guides?bbox=127.99,34.99,128.01,35.01&page=2",
	} {
		if a := c.call("GET", bad, "", nil); a.status != 400 {
			t.Errorf("GET %s: %d %s", bad, a.status, a.raw)
		}
	}
}

// q holds at most guides.MaxQueryTerms terms: past them 400 naming q with
// too_many, on nearby and viewport alike.
func TestTextSearchTermsAreCapped(t *testing.T) {
	c := newContract(t)
	h := &harness{t: t, srv: c.srv}
	// A word is a term; a Hangul run of n syllables is n−1 (its pairs).
	fits := []string{"abc def ghi 남산서울타워", "남산서울타워전망대", "a-b c.d e f g h"}
	over := []string{"abc def ghi jkl mno pqr stu vwx yz", "남산서울타워전망대역", "a-b c.d e f g h i"}
	for _, path := range []string{"/v1/guides/nearby?lat=35&lng=128&q=", "/v1/guides?bbox=127.99,34.99,128.01,35.01&q="} {
		for _, q := range fits {
			if r := h.do("GET", path+url.QueryEscape(q), "", ""); r.status != 200 {
				t.Fatalf("GET %s%s: %d %v", path, q, r.status, r.body)
			}
		}
		for _, q := range over {
			r := h.do("GET", path+url.QueryEscape(q), "", "")
			problem(t, r, 400, "q")
			if fe := r.body["errors"].([]any)[0].(map[string]any); fe["code"] != "too_many" {
				t.Fatalf("q=%s: %v", q, r.body)
			}
		}
	}
}
