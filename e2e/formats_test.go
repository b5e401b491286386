package e2e

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gen2brain/avif"
	"golang.org/x/image/webp"

	"github.com/guidepost/guidepost/internal/testkit"
)

type variantDoc struct {
	Kind   string `json:"kind"`
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	URL    string `json:"url"`
	Bytes  *int64 `json:"bytes"`
}

// Every variant of every kind of test photo, in every format MEDIA_FORMATS
// asks for, decodes to its listed size through the binary; each is stored
// with its own type and a year of immutable caching, the marker is the
// centred square and nothing is larger than the photo; the orientation
// charts come out upright in every format.
func TestMediaEveryVariantDecodes(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev", "MEDIA_FORMATS=jpeg,webp,avif")
	c := newMediaClient(t, p.URL)
	names := []string{"photo.jpg", "photo.png", "photo-16bit.png", "cmyk.jpg", "alpha.png", "photo.webp",
		"photo.heic", "heic-exif6.heic", "p3.jpg", "orient-2.jpg", "orient-5.jpg", "orient-6.jpg", "orient-8.jpg"}
	ids := map[string]string{}
	for _, name := range names {
		r := c.upload(map[string][]byte{name: testPhoto(t, name)}, "")
		if r.status != 202 {
			t.Fatalf("%s: %d", name, r.status)
		}
		ids[name] = r.doc.ID
	}
	for _, name := range names {
		m := c.waitDone(ids[name], 90*time.Second)
		if m.Status != "ready" {
			t.Fatalf("%s: %+v", name, m)
		}
		vs := variantsOf(t, c, ids[name])
		seen := map[string]bool{}
		for _, v := range vs {
			seen[v.Kind+"."+v.Format] = true
			img, data, header := fetchVariant(t, v)
			if got := img.Bounds().Size(); got != image.Pt(v.Width, v.Height) || v.Bytes == nil || *v.Bytes != int64(len(data)) {
				t.Errorf("%s %s %s: decoded %v, %d bytes; listed %d×%d, %v bytes", name, v.Kind, v.Format, got, len(data), v.Width, v.Height, v.Bytes)
			}
			if header.Get("Content-Type") != "image/"+v.Format || header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
				t.Errorf("%s %s %s: Content-Type %q, Cache-Control %q", name, v.Kind, v.Format, header.Get("Content-Type"), header.Get("Cache-Control"))
			}
			if v.Width > m.Width || v.Height > m.Height || v.Kind == "marker" && v.Width != v.Height {
				t.Errorf("%s %s: %d×%d for a %d×%d photo", name, v.Kind, v.Width, v.Height, m.Width, m.Height)
			}
			if len(name) > 7 && name[:7] == "orient-" && v.Kind == "web" {
				if !near(img.At(15, 15), 255, 0, 0) || !near(img.At(200, 120), 0, 0, 255) {
					t.Errorf("%s %s: not upright: top-left %v, bottom-right %v", name, v.Format, img.At(15, 15), img.At(200, 120))
				}
			}
		}
		for _, kind := range []string{"marker", "small", "thumbnail", "web"} {
			for _, f := range []string{"jpeg", "webp", "avif"} {
				if !seen[kind+"."+f] {
					t.Errorf("%s: no %s %s variant in %+v", name, kind, f, vs)
				}
			}
		}
	}
}

func variantsOf(t *testing.T, c *mediaClient, id string) []variantDoc {
	t.Helper()
	resp, err := http.Get(c.base + "/v1/media/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		URLs struct {
			Variants []variantDoc `json:"variants"`
		} `json:"urls"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.URLs.Variants
}

// fetchVariant downloads a variant and decodes it as its format says; a
// JPEG must also carry no metadata segment (fetchJPEG checks that).
func fetchVariant(t *testing.T, v variantDoc) (image.Image, []byte, http.Header) {
	t.Helper()
	resp, err := http.Get(v.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s %s: %d %s", v.Kind, v.Format, resp.StatusCode, data)
	}
	var img image.Image
	switch v.Format {
	case "jpeg":
		img = fetchJPEG(t, &v.URL)
		_, err = jpeg.DecodeConfig(bytes.NewReader(data))
	case "webp":
		img, err = webp.Decode(bytes.NewReader(data))
		if bytes.Contains(data, []byte("EXIF")) || bytes.Contains(data, []byte("ICCP")) || bytes.Contains(data, []byte("XMP ")) {
			t.Errorf("%s webp carries metadata", v.Kind)
		}
	case "avif":
		img, err = avif.Decode(bytes.NewReader(data))
		if bytes.Contains(data, []byte("Exif")) {
			t.Errorf("%s avif carries EXIF", v.Kind)
		}
	default:
		t.Fatalf("format %q", v.Format)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", v.Kind, v.Format, err)
	}
	return img, data, resp.Header
}
