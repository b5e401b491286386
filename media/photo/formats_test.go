package photo

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen2brain/avif"
	xwebp "golang.org/x/image/webp"
)

// formatPhotos are the test photos every encoding is checked on: each
// orientation path, CMYK, 16-bit PNG, alpha, HEIC and a wide gamut.
var formatPhotos = []string{"photo.jpg", "orient-6.jpg", "orient-5.jpg", "photo.png", "alpha.png",
	"photo.webp", "photo.heic", "heic-exif6.heic", "p3.jpg", "srgb-profile.jpg"}

func decodeAs(t testing.TB, e Encoding, data []byte) image.Image {
	t.Helper()
	var img image.Image
	var err error
	switch e {
	case EncodingJPEG:
		img, err = jpeg.Decode(bytes.NewReader(data))
	case EncodingWebP:
		img, err = xwebp.Decode(bytes.NewReader(data))
	case EncodingAVIF:
		img, err = avif.Decode(bytes.NewReader(data))
	}
	if err != nil {
		t.Fatalf("%s: %v", e, err)
	}
	return img
}

// TestFormatsKeepTheJPEGsSSIM: each WebP and AVIF derivative has the JPEG's
// size, fewer bytes, and is within 0.01 SSIM of the JPEG's closeness to the
// unencoded render (0.07 on the flat synthetic charts: orientations, profiles, where
// 4:2:0 chroma costs lossy WebP its colour edges).
func TestFormatsKeepTheJPEGsSSIM(t *testing.T) {
	photos, encs := formatPhotos, []Encoding{EncodingWebP, EncodingAVIF}
	if raceEnabled { // SSIM through image.At and AVIF in WebAssembly: minutes under -race
		photos, encs = []string{"photo.jpg", "orient-6.jpg", "photo.png"}, []Encoding{EncodingWebP}
	}
	for _, name := range photos {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("../../testdata/photos", name))
			if err != nil {
				t.Fatal(err)
			}
			f, _ := Sniff(data)
			n := 0
			opts := Options{Encodings: encs, keep: func(d Derivative, ref *image.RGBA) {
				n++
				base := ssim(ref, decodeAs(t, EncodingJPEG, d.JPEG))
				for _, e := range encs {
					img := decodeAs(t, e, d.File(e))
					if img.Bounds().Size() != ref.Rect.Size() {
						t.Errorf("%s %v: size %v", e, ref.Rect.Size(), img.Bounds().Size())
					}
					got := ssim(ref, img)
					t.Logf("%v %s: SSIM %.4f (%d bytes) against the JPEG's %.4f (%d bytes)", ref.Rect.Size(), e, got, len(d.File(e)), base, len(d.JPEG))
					slack := 0.01
					if strings.HasPrefix(name, "orient") || strings.HasPrefix(name, "heic-") || strings.HasPrefix(name, "p3") || strings.HasPrefix(name, "srgb") {
						slack = 0.07
					}
					if len(d.File(e)) >= len(d.JPEG) && ref.Rect.Dx() > 64 {
						t.Errorf("%v %s: %d bytes, the JPEG %d", ref.Rect.Size(), e, len(d.File(e)), len(d.JPEG))
					}
					if got < base-slack {
						t.Errorf("%v %s: SSIM %.4f below the JPEG's %.4f", ref.Rect.Size(), e, got, base)
					}
				}
			}}
			if _, err := Render(context.Background(), bytes.NewReader(data), f, opts); err != nil {
				t.Fatal(err)
			}
			if n != 4 {
				t.Fatalf("%d derivatives seen, want 4", n)
			}
		})
	}
}
