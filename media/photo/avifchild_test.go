//go:build !race

package photo_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/gen2brain/avif"
	xwebp "golang.org/x/image/webp"

	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/worker"
)

// This file is left out under -race: AVIF's WebAssembly encoder takes
// minutes a photo there. `make test` runs it in a run of its own without
// the race detector.

// The test binary is the render child, as the guidepost binary is.
const renderChildEnv = "GUIDEPOST_PHOTO_TEST_RENDER_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(renderChildEnv) == "1" {
		os.Exit(worker.RenderChild(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// TestAVIFRendersA12MPPhotoInTheRenderChild renders a 12 MP photo in
// jpeg, webp and avif in the real render child, under the memory limit
// the worker gives it (photo.Info.RenderMemory plus photo.EncoderMemory),
// and decodes every output. With 256 MiB for the AVIF encoder, every such
// render failed as too complex. The CPU and wall limits are loosened
// (the worker's are 20 s and 30 s) so that a loaded machine cannot fail
// it; the memory limit is the worker's own.
func TestAVIFRendersA12MPPhotoInTheRenderChild(t *testing.T) {
	data := twelveMP(t)
	info, err := photo.ProbeBytes(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &worker.ChildRenderer{Command: []string{os.Args[0]}, Env: []string{renderChildEnv + "=1"},
		CPU: 5 * time.Minute, Wall: 10 * time.Minute}
	encs := []photo.Encoding{photo.EncodingWebP, photo.EncodingAVIF}
	res, err := r.Render(context.Background(), data, info, photo.Options{Encodings: encs})
	if err != nil {
		t.Fatalf("%d×%d in the render child with %d MiB: %v", info.Width, info.Height,
			(info.RenderMemory()+photo.EncoderMemory(encs))>>20, err)
	}
	for i, d := range []photo.Derivative{res.Web, res.Thumb, res.Small, res.Marker} {
		for _, e := range []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF} {
			var img image.Image
			var err error
			switch r := bytes.NewReader(d.File(e)); e {
			case photo.EncodingJPEG:
				img, err = jpeg.Decode(r)
			case photo.EncodingWebP:
				img, err = xwebp.Decode(r)
			case photo.EncodingAVIF:
				img, err = avif.Decode(r)
			}
			if err != nil {
				t.Fatalf("derivative %d %s: %v", i, e, err)
			}
			if got := img.Bounds().Size(); got != image.Pt(d.Width, d.Height) {
				t.Errorf("derivative %d %s: %v, want %d×%d", i, e, got, d.Width, d.Height)
			}
		}
	}
	if res.Web.Width != photo.WebMax {
		t.Errorf("web width %d, want %d", res.Web.Width, photo.WebMax)
	}
}

// twelveMP is the grainy 12 MP benchmark photo when
// scripts/gen-testdata.sh --bench has made it, else a 4000×3000 JPEG of
// a gradient under seeded grain, made here, so that a fresh clone runs
// the test too.
func twelveMP(t *testing.T) []byte {
	if data, err := os.ReadFile("../../testdata/bench/photo-12mp.jpg"); err == nil {
		return data
	}
	const w, h = 4000, 3000
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	rng := rand.New(rand.NewPCG(42, 23))
	for y := range h {
		for x := range w {
			img.Y[y*img.YStride+x] = uint8(min(255, max(0, 60+120*x/w+int(rng.NormFloat64()*20))))
		}
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = uint8(118+rng.IntN(20)), uint8(128+rng.IntN(20))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
