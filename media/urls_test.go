package media_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// Two answers a minute apart carry byte-identical derivative URLs, which
// download; the owner's original is presigned per answer, never for the
// hour.
func TestDerivativeURLsStayTheSameForTheHour(t *testing.T) {
	s3 := objstore.New(testkit.S3Config(t))
	e := newEnvWith(media.Config{}, func(d *media.Deps) { d.Blobs = s3 })
	// A minute into the current hour: the URL's signing time (the hour)
	// is in the past, as a real server demands.
	e.clock.now = time.Now().Truncate(time.Hour).Add(time.Minute)
	ctx := context.Background()
	m := accepted(t, e, "orient-6.jpg")
	if err := e.svc.Derive(ctx, media.DeriveTask{MediaID: m.ID}); err != nil {
		t.Fatal(err)
	}
	first, err := e.svc.Get(ctx, m.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Minute)
	second, _ := e.svc.Get(ctx, m.ID, alice)
	if first.ThumbURL == "" || first.ThumbURL != second.ThumbURL || first.WebURL != second.WebURL {
		t.Fatalf("URLs changed within the hour:\n%s\n%s", first.ThumbURL, second.ThumbURL)
	}
	// Each presigned URL has its own signature, ~400 bytes that lists
	// cannot afford twice: a list's cover carries the thumbnail's, and
	// names the marker by its short API path.
	if c := e.svc.CoverURLs(ctx, m.ID, first.Media.Variants); c.Thumbnail != first.ThumbURL || c.Marker != "/v1/media/"+m.ID+"/marker.jpg" ||
		len(c.Formats) != 2 || first.MarkerURL == "" {
		t.Fatalf("guides would show other cover URLs: %+v", c)
	}
	for _, u := range []string{first.ThumbURL, first.WebURL} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Fatalf("GET %s: %d %q", u, resp.StatusCode, body)
		}
	}
	q, _ := url.Parse(first.ThumbURL)
	if got := q.Query().Get("X-Amz-Expires"); got != "7200" {
		t.Errorf("derivative valid for %ss, want two hours from the hour", got)
	}
	o, _ := url.Parse(first.OriginalURL)
	if first.OriginalURL == "" || o.Query().Get("X-Amz-Date") == q.Query().Get("X-Amz-Date") || o.Query().Get("X-Amz-Expires") != "900" {
		t.Errorf("original URL signed for the hour: %s", first.OriginalURL)
	}
	e.clock.Add(time.Hour)
	if next := e.svc.CoverURLs(ctx, m.ID, first.Media.Variants).Thumbnail; next == first.ThumbURL {
		t.Error("the next hour kept the URL")
	}
}
