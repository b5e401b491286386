package photo

import (
	"bytes"
	"image"
	"testing"

	xwebp "golang.org/x/image/webp"
)

// A lossy WebP of black, mid grey and white decodes to them again within
// the codec's error, where the x/image decoder's planes read as JPEG's
// full range give about 16, 128 and 235.
func TestDecodeWebPReadsLimitedRange(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 96, 32))
	for x := range 96 {
		v := [3]uint8{0, 128, 255}[x/32]
		for y := range 32 {
			copy(img.Pix[img.PixOffset(x, y):], []uint8{v, v, v, 255})
		}
	}
	s := webpLossy
	s.quality = 95
	data, err := encodeWebPRGBA(img, s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeWebP(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{0, 128, 255} {
		r, _, _, _ := got.At(32*i+16, 16).RGBA()
		if d := int(r>>8) - want; d < -3 || d > 3 {
			t.Errorf("grey %d decoded as %d", want, r>>8)
		}
	}
}

// libwebp's planes (decodeWebPPlanes, which the render's SSIM checks read)
// are x/image's, sample for sample, on grain at several qualities and on
// odd sizes, whose chroma rounds up.
func TestDecodeWebPPlanesMatchesXImage(t *testing.T) {
	for _, size := range []image.Point{{640, 480}, {333, 101}, {1, 1}} {
		img := grainyRGBA(size.X, size.Y)
		for _, q := range []int{30, 86, 100} {
			s := webpLossy
			s.quality = q
			data, err := encodeWebPRGBA(img, s)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := decodeWebPPlanes(data)
			if !ok {
				t.Skip("no libwebp decoder in this build")
			}
			want, err := xwebp.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			w := want.(*image.YCbCr)
			cw, ch := chromaSize(w.Rect, w.SubsampleRatio)
			if got.Rect != w.Rect || !samePlane(got.Y, got.YStride, w.Y, w.YStride, size.X, size.Y) ||
				!samePlane(got.Cb, got.CStride, w.Cb, w.CStride, cw, ch) || !samePlane(got.Cr, got.CStride, w.Cr, w.CStride, cw, ch) {
				t.Errorf("%v q%d: libwebp's planes differ from x/image's", size, q)
			}
		}
	}
}

func samePlane(a []byte, as int, b []byte, bs int, w, h int) bool {
	for y := range h {
		if !bytes.Equal(a[y*as:][:w], b[y*bs:][:w]) {
			return false
		}
	}
	return true
}
