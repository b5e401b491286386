package photo

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
)

// TestGrainyPhotoKeepsTheJPEGsSSIM holds the grainy 12 MP benchmark photo
// (scripts/gen-testdata.sh --bench; plasma under Gaussian grain, the
// photo the worker's CPU is measured on) to the JPEG's SSIM at every
// width, in WebP and AVIF, with no slack: the case where the smooth
// photos' qualities fall 0.004–0.025 short (see Grainy). Under -race, a
// 2400×1800 crop at the same grain in WebP alone, as 12 MP SSIMs and AVIF
// in WebAssembly take minutes there; without -race (make test runs both),
// the whole photo in both formats.

func TestGrainyPhotoKeepsTheJPEGsSSIM(t *testing.T) {
	if raceEnabled {
		holdSSIM(t, "photo-12mp-crop.jpg", grainyCrop(t, benchFile(t, "photo-12mp.jpg")), []Encoding{EncodingWebP})
		return
	}
	holdSSIM(t, "photo-12mp.jpg", benchFile(t, "photo-12mp.jpg"), []Encoding{EncodingWebP, EncodingAVIF})
}

// TestBenchHEICKeepsTheJPEGsSSIM holds the benchmark HEIC (a smoother
// photo, light grain) to the JPEG's SSIM at every width. Its JPEGs take
// 0.8 bits a pixel at 2048 px, as grainy as Grainy knows, and keep an
// SSIM of 0.983 there, which the grain qualities miss by 0.016 in WebP and
// 0.010 in AVIF: bits per pixel cannot tell it apart, and only encoding
// again at a higher quality (ssimHold) holds it. Under -race, WebP alone.
func TestBenchHEICKeepsTheJPEGsSSIM(t *testing.T) {
	encs := []Encoding{EncodingWebP, EncodingAVIF}
	if raceEnabled {
		encs = encs[:1]
	}
	holdSSIM(t, "photo-12mp.heic", benchFile(t, "photo-12mp.heic"), encs)
}

// grainyCrop is the middle 2400×1800 of a JPEG, again a JPEG at the
// benchmark photo's quality (88): its web size is still a resize, and
// its grain is the photo's, pixel for pixel.
func grainyCrop(t *testing.T, data []byte) []byte {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	crop := image.Rect(0, 0, 2400, 1800).Add(b.Min.Add(b.Size().Sub(image.Pt(2400, 1800)).Div(2)))
	rgba := image.NewRGBA(image.Rect(0, 0, 2400, 1800))
	for y := range 1800 {
		for x := range 2400 {
			rgba.Set(x, y, img.At(crop.Min.X+x, crop.Min.Y+y))
		}
	}
	out, err := encodeJPEG(rgba, 88)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
