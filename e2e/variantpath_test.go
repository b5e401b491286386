package e2e

import (
	"bytes"
	"encoding/json"
	"image"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/webp"

	"github.com/guidepost/guidepost/internal/testkit"
)

// With presigned URLs (the default), nearby names each cover's marker by
// its short API path; following it gives 302 to a presigned URL, private
// and reusable for most of its life, whose bytes are the 256 px marker; the
// file name swapped for small.webp gives the WebP. A reader who blocks the
// author, and everyone once a moderator hides the photo, get 404 as for a
// missing photo; a name that is no variant is a 400 naming variant.
func TestCoverMarkerPathThroughTheBinary(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	a := newGuideAPI(t, p.URL)
	ownerID, ownerToken := a.guest()
	owner := &mediaClient{t: t, base: p.URL, token: ownerToken}
	r := owner.upload(map[string][]byte{"photo.jpg": testPhoto(t, "photo.jpg")}, "") // 640×480
	if r.status != 202 {
		t.Fatalf("upload: %d %+v", r.status, r.problem)
	}
	id := r.doc.ID
	if m := owner.waitDone(id, 60*time.Second); m.Status != "ready" {
		t.Fatalf("photo %+v", m)
	}
	in := map[string]any{"title": "Marker path", "lat": lbLat, "lng": lbLng, "media_ids": []string{id}}
	if code, raw := a.call("POST", "/v1/guides", ownerToken, in, nil); code != 201 {
		t.Fatalf("create: %d %s", code, raw)
	}
	var page struct {
		Items []struct {
			Cover struct {
				URLs struct {
					Marker  string
					Formats []string
				}
			}
		}
	}
	path := "/v1/guides/nearby?lat=" + fmtF(lbLat) + "&lng=" + fmtF(lbLng) + "&radius_m=500"
	if code, raw := a.call("GET", path, "", nil, &page); code != 200 || len(page.Items) != 1 {
		t.Fatalf("nearby: %d %s", code, raw)
	}
	cover := page.Items[0].Cover.URLs
	if cover.Marker != "/v1/media/"+id+"/marker.jpg" || strings.Join(cover.Formats, ",") != "jpeg,webp" {
		t.Fatalf("cover urls %+v", cover)
	}
	marker := followVariant(t, p.URL, cover.Marker, "")
	if img, _, err := image.Decode(bytes.NewReader(marker)); err != nil || img.Bounds().Size() != image.Pt(256, 256) {
		t.Fatalf("marker: %v", err)
	}
	base, _ := url.Parse(cover.Marker)
	small, _ := url.Parse("small.webp")
	img, err := webp.Decode(bytes.NewReader(followVariant(t, p.URL, base.ResolveReference(small).String(), ownerToken)))
	if err != nil || img.Bounds().Size() != image.Pt(540, 405) {
		t.Fatalf("small.webp: %v", err)
	}
	if code, field := variantProblem(t, p.URL+"/v1/media/"+id+"/huge.png", ""); code != 400 || field != "variant" {
		t.Fatalf("huge.png: %d naming %q", code, field)
	}

	_, readerToken := a.guest()
	if code, raw := a.call("PUT", "/v1/me/blocks/"+ownerID, readerToken, nil, nil); code != 200 {
		t.Fatalf("block: %d %s", code, raw)
	}
	if code, _ := variantProblem(t, p.URL+cover.Marker, readerToken); code != 404 {
		t.Fatalf("the blocker follows the marker: %d", code)
	}
	followVariant(t, p.URL, cover.Marker, "") // still there for everyone else

	_, modToken := a.member("mod@example.com")
	admin(t, s.env(), "grant-moderator", "mod@example.com")
	hide := map[string]any{"action": "hide", "target_type": "photo", "target_id": id, "reason": "test: hide"}
	if code, raw := a.call("POST", "/v1/moderation/actions", modToken, hide, nil); code != 200 {
		t.Fatalf("hide: %d %s", code, raw)
	}
	missing := "/v1/media/0190a0a0-0000-7000-8000-000000000000/marker.jpg"
	for _, token := range []string{"", ownerToken} {
		hidden, _ := variantProblem(t, p.URL+cover.Marker, token)
		gone, _ := variantProblem(t, p.URL+missing, token)
		if hidden != 404 || gone != 404 {
			t.Fatalf("hidden photo: %d, missing one: %d", hidden, gone)
		}
	}
}

var noRedirects = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// followVariant GETs a variant's API path (as token, "" anonymous), wants
// a private 302 reusable for 55 minutes to two hours, and returns the
// bytes at its Location.
func followVariant(t *testing.T, base, path, token string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, cc := resp.Header.Get("Location"), resp.Header.Get("Cache-Control")
	age, err := strconv.Atoi(strings.TrimPrefix(cc, "private, max-age="))
	if resp.StatusCode != 302 || !strings.Contains(loc, "X-Amz-Signature=") || err != nil || age < 55*60 || age > 115*60 {
		t.Fatalf("GET %s: %d, Location %q, Cache-Control %q", path, resp.StatusCode, loc, cc)
	}
	img, err := http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Body.Close()
	body, _ := io.ReadAll(img.Body)
	if img.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", loc, img.StatusCode, body)
	}
	return body
}

// variantProblem GETs a variant's URL expecting problem+json, and returns
// the status and the first field named.
func variantProblem(t *testing.T, u, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p mediaProblem
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("GET %s: %d %s, %v", u, resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	field := ""
	if len(p.Errors) > 0 {
		field = p.Errors[0].Field
	}
	return resp.StatusCode, field
}
