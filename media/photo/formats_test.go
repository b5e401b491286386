package photo

import (
	"bytes"
	"context"
	"image"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// refusedPhotos are the files of testdata/photos that Sniff takes as a
// photo format but Render refuses (other tests say why).
var refusedPhotos = []string{"bomb.png", "corrupt.jpg", "heic-64px.heic", "polyglot-header.jpg"}

// renderablePhotos are the paths of every test photo Render takes: each file
// of testdata/photos that Sniff names a format, less refusedPhotos, then the
// benchmark photos when scripts/gen-testdata.sh --bench has made them.
func renderablePhotos(t *testing.T, bench bool) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{testdata, benchdata} {
		if dir == benchdata && !bench {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil && dir == benchdata {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil || e.IsDir() {
				continue
			}
			if _, err := Sniff(data); err != nil || slices.Contains(refusedPhotos, e.Name()) {
				continue
			}
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func decodeAs(t testing.TB, e Encoding, data []byte) image.Image {
	t.Helper()
	img, err := decodeEncoded(e, data)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// ssimNotMet are the derivatives where the goal is not met, each named
// with the shortfall measured, so that any other derivative falling short,
// or one of these falling further, fails.
//
// The web size of a 640×480 JPEG original, which is not resized: the JPEG
// derivative then re-encodes blocks a JPEG encoder already quantised, on
// the same 8×8 grid at about the same quality (SSIM 0.9999 for photo.jpg):
// it is nearly the original file again, a generation no other codec can
// skip. Lossy WebP reaches 0.997 at q100, at 1.4× the JPEG's bytes, and
// lossless WebP is larger than the JPEG; AVIF is as short. Nothing is lost
// here that the original's own JPEG had not lost already: the thumbnail,
// the same 640×480 at the JPEG's quality 70, is a fresh encode by both
// sides, and there WebP and AVIF are above the JPEG.
//
// The Display P3 and sRGB-profile patches in AVIF: flat colours that the
// JPEG keeps exactly (4:4:4, SSIM 0.999999), and that AV1's RGB to YCbCr
// rounding moves by a level at every quality, q100 included (0.00002).
//
// For each, encoding again (ssimHold) stops after one raise or two, whose
// gain says that q100 falls short, and keeps the first file. cmyk.jpg's
// AVIF web size, 0.0015 short before, reaches its JPEG that way.
var ssimNotMet = map[Encoding]map[string]float64{
	EncodingWebP: {"photo.jpg/web": 0.004, "gps.jpg/web": 0.004, "cmyk.jpg/web": 0.001},
	EncodingAVIF: {"photo.jpg/web": 0.004, "gps.jpg/web": 0.004,
		"p3.jpg/web": 0.00003, "p3.jpg/thumb": 0.00003, "p3.jpg/small": 0.00003, "p3.jpg/marker": 0.00003,
		"p3.png/web": 0.00003, "p3.png/thumb": 0.00003, "p3.png/small": 0.00003, "p3.png/marker": 0.00003,
		"srgb-profile.jpg/web": 0.00003, "srgb-profile.jpg/thumb": 0.00003, "srgb-profile.jpg/small": 0.00003,
		"srgb-profile.jpg/marker": 0.00003},
}

// TestFormatsKeepTheJPEGsSSIM: on every test photo (flat synthetic charts,
// orientations, CMYK, 16-bit PNG, alpha, HEIC, Display P3), each WebP
// and AVIF derivative, at every width, has the JPEG's size, fewer bytes,
// and an SSIM against the unencoded render at least the JPEG's: no
// tolerance, but for the named ssimNotMet. Under -race, AVIF (WebAssembly)
// is left to the run without it (make test runs both).
func TestFormatsKeepTheJPEGsSSIM(t *testing.T) {
	encs := []Encoding{EncodingWebP, EncodingAVIF}
	if raceEnabled {
		encs = encs[:1]
	}
	for _, path := range renderablePhotos(t, false) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			holdSSIM(t, filepath.Base(path), data, encs)
		})
	}
}

// holdSSIM renders the photo in encs and holds each derivative in each
// of them to its JPEG's SSIM against the unencoded render, less only what
// ssimNotMet names, and to the JPEG's size. A derivative that is not
// grainy (Grainy) must also be smaller than its JPEG; a grainy one's bytes
// are logged: there, keeping the JPEG's SSIM costs WebP up to 1.3× them.
func holdSSIM(t *testing.T, name string, data []byte, encs []Encoding) {
	t.Helper()
	f, err := Sniff(data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	kinds := []string{"web", "thumb", "small", "marker"}
	opts := Options{Encodings: encs, keep: func(d Derivative, rgb *image.RGBA, planes *image.YCbCr) {
		kind := kinds[min(n, 3)]
		n++
		// The pixels the JPEG was made from, as the render holds them.
		var ref image.Image = rgb
		if planes != nil {
			ref = planes
		}
		size := ref.Bounds().Size()
		base := ssim(ref, decodeAs(t, EncodingJPEG, d.JPEG))
		grainy := Grainy(len(d.JPEG), d.Width, d.Height)
		for _, e := range encs {
			img := decodeAs(t, e, d.File(e))
			if img.Bounds().Size() != size {
				t.Errorf("%s %v: size %v", e, size, img.Bounds().Size())
			}
			got := ssim(ref, img)
			t.Logf("%-6s %v %s: SSIM %.5f (%d bytes) against the JPEG's %.5f (%d bytes), grainy %v, %d re-encodes", kind, size, e, got, len(d.File(e)), base, len(d.JPEG), grainy, d.Reencodes)
			if len(d.File(e)) >= len(d.JPEG) && size.X > 64 && !grainy {
				t.Errorf("%s %v %s: %d bytes, the JPEG %d", kind, size, e, len(d.File(e)), len(d.JPEG))
			}
			if got < base-ssimNotMet[e][name+"/"+kind] {
				t.Errorf("%s %v %s: SSIM %.6f below the JPEG's %.6f", kind, size, e, got, base)
			}
		}
	}}
	if _, err := Render(context.Background(), bytes.NewReader(data), f, opts); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("%d derivatives seen, want 4", n)
	}
}

// The photos the SSIM test walks are every one Render takes, charts, CMYK,
// 16-bit PNG and alpha among them, and the ones it leaves out are refused.
func TestFormatsCoverEveryTestPhoto(t *testing.T) {
	var names []string
	for _, p := range renderablePhotos(t, false) {
		names = append(names, filepath.Base(p))
	}
	for _, want := range []string{"orient-6.jpg", "p3.jpg", "cmyk.jpg", "photo-16bit.png", "alpha.png", "photo.heic", "polyglot.jpg"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	for _, name := range refusedPhotos {
		data := readTestdata(t, name)
		f, err := Sniff(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := Render(context.Background(), bytes.NewReader(data), f, Options{}); err == nil {
			t.Errorf("%s rendered: it belongs in the SSIM test", name)
		}
	}
}
