package photo

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"testing"

	"github.com/disintegration/imaging"
)

// photoLike is a w×h picture with smooth gradients and fine detail, JPEG
// q90 4:2:0 (image/jpeg's only layout).
func photoLike(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			img.Set(x, y, color.RGBA{
				R: uint8(40 + 180*fx + 20*math.Sin(float64(x)/3)),
				G: uint8(60 + 150*fy + 15*math.Cos(float64(y)/4)),
				B: uint8(128 + 100*math.Sin(6*fx)*math.Cos(5*fy)),
				A: 255,
			})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// psnr of two same-sized images, over R, G and B.
func psnr(t *testing.T, a, b image.Image) float64 {
	t.Helper()
	if a.Bounds().Size() != b.Bounds().Size() {
		t.Fatalf("sizes %v and %v", a.Bounds().Size(), b.Bounds().Size())
	}
	na, nb := imaging.Clone(a), imaging.Clone(b)
	var se float64
	n := 0
	for i := range na.Pix {
		if i%4 == 3 {
			continue
		}
		d := float64(na.Pix[i]) - float64(nb.Pix[i])
		se += d * d
		n++
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

func TestJPEGScale(t *testing.T) {
	for _, c := range []struct{ w, h, minW, minH, want int }{
		{4000, 3000, 2048, 1536, 5}, // 2500×1875: 4/8 would be 2000 wide
		{8000, 6000, 2048, 1536, 3}, // 3000×2250
		{3000, 4000, 1536, 2048, 5},
		{2048, 1536, 2048, 1536, 8}, // never below the target
		{640, 480, 640, 480, 8},
		{16000, 12000, 1000, 750, 1},
	} {
		n := jpegScale(c.w, c.h, c.minW, c.minH)
		if n != c.want {
			t.Errorf("%d×%d for %d×%d: %d/8; want %d/8", c.w, c.h, c.minW, c.minH, n, c.want)
		}
		if (c.w*n+7)/8 < c.minW || (c.h*n+7)/8 < c.minH {
			t.Errorf("%d×%d at %d/8 is smaller than %d×%d", c.w, c.h, n, c.minW, c.minH)
		}
	}
}

// The render of a JPEG (scaled decode, planes resized, turned and encoded
// as they are, where libjpeg-turbo is built in) matches the reference
// pipeline: image/jpeg's full decode, imaging's Catmull-Rom and orientation,
// image/jpeg's encoder, both for the web image and the thumbnail.
func TestRenderMatchesReferencePipeline(t *testing.T) {
	src := photoLike(t, 2600, 1950)
	for _, o := range []int{1, 6} {
		data := src
		if o != 1 {
			data = withOrientation(t, src, o)
		}
		info := probeBytes(t, data)
		res, err := RenderProbed(context.Background(), data, info, Options{})
		if err != nil {
			t.Fatal(err)
		}
		full, err := jpeg.Decode(bytes.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		var upright image.Image = full
		if o == 6 {
			upright = imaging.Rotate270(full)
		}
		for _, d := range []struct {
			name string
			got  []byte
			box  int
			min  float64 // q70 loses more of the fine detail than q85
		}{{"web", res.Web.JPEG, WebMax, 36}, {"thumb", res.Thumb.JPEG, ThumbMax, 31}} {
			w, h := fit(upright.Bounds().Dx(), upright.Bounds().Dy(), d.box)
			want := imaging.Resize(upright, w, h, imaging.CatmullRom)
			got := decodeJPEG(t, d.got)
			if p := psnr(t, got, want); p < d.min {
				t.Errorf("orientation %d, %s (%v): %.1f dB from the reference", o, d.name, got.Bounds().Size(), p)
			} else {
				t.Logf("orientation %d, %s: %.1f dB", o, d.name, p)
			}
		}
	}
}

// withOrientation adds an EXIF APP1 with the orientation tag after SOI.
func withOrientation(t *testing.T, data []byte, o int) []byte {
	t.Helper()
	exif := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00")
	exif[len(exif)-7] = byte(o) // the SHORT's low byte, big-endian
	seg := append([]byte{0xFF, 0xE1, byte((len(exif) + 2) >> 8), byte(len(exif) + 2)}, exif...)
	out := append([]byte{0xFF, 0xD8}, seg...)
	return append(out, data[2:]...)
}

// A truncated or damaged JPEG is judged by image/jpeg, as before: the
// scaled decoder refuses what it would paper over with grey blocks, and the
// render fails as corrupt.
func TestDamagedJPEGIsCorrupt(t *testing.T) {
	data := photoLike(t, 1200, 900)
	cut := data[:len(data)*2/3]
	if img, err := decodeJPEGScaled(cut, 1200, 900, 600, 450); err == nil {
		t.Fatalf("a truncated file decoded to %v", img.Bounds())
	}
	info := probeBytes(t, data)
	if _, err := RenderProbed(context.Background(), cut, info, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v; want ErrCorrupt", err)
	}
}

// Planes encoded as they are, padding and all, decode to what they held.
func TestEncodeYCbCrRoundTrip(t *testing.T) {
	src, err := jpeg.Decode(bytes.NewReader(photoLike(t, 333, 217)))
	if err != nil {
		t.Fatal(err)
	}
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio444} {
		planes := newPlanes(333, 217, ratio)
		for y := range 217 {
			for x := range 333 {
				c := src.At(x, y).(color.YCbCr)
				planes.Y[planes.YOffset(x, y)] = c.Y
				planes.Cb[planes.COffset(x, y)], planes.Cr[planes.COffset(x, y)] = c.Cb, c.Cr
			}
		}
		padPlanes(planes)
		for _, o := range []int{1, 6} {
			up := orientPlanes(planes, o)
			out, err := encodeYCbCr(up, 90)
			if err != nil {
				t.Fatal(err)
			}
			want := image.Image(planes)
			if o == 6 {
				want = imaging.Rotate270(planes)
			}
			if p := psnr(t, decodeJPEG(t, out), want); p < 36 {
				t.Errorf("%v, orientation %d: %.1f dB", ratio, o, p)
			}
		}
	}
}
