package photo

import (
	"bytes"
	"image"
	"math"
	"testing"

	xwebp "golang.org/x/image/webp"
)

// decodeWebP decodes a WebP as browsers (libwebp) show it. The x/image
// decoder hands lossy VP8 back as the planes it stores, in an image.YCbCr,
// whose colour model is JPEG's full range; VP8's planes are BT.601 limited
// range (luma 16–235), so read that way every grey moves towards the middle
// and every texture loses about 14 % of its contrast (golang/go#40173).
// Our SSIM scored that lost contrast against WebP: on the grainy benchmark
// photo, 0.01–0.04. Lossless WebP decodes to NRGBA and needs nothing.
func decodeWebP(data []byte) (image.Image, error) {
	img, err := xwebp.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	switch m := img.(type) {
	case *image.YCbCr:
		return limitedToRGBA(m, nil), nil
	case *image.NYCbCrA:
		return limitedToRGBA(&m.YCbCr, m), nil
	}
	return img, nil
}

// limitedToRGBA converts BT.601 limited-range planes as libwebp's yuv.h
// does (its fixed-point constants are these, rounded), taking each pixel's
// chroma from the sample that covers it; libwebp's decoder interpolates
// chroma instead, which moves no luma. With alpha, the result is the
// non-premultiplied colours premultiplied, as image.RGBA holds them.
func limitedToRGBA(m *image.YCbCr, alpha *image.NYCbCrA) *image.RGBA {
	r := m.Rect
	out := image.NewRGBA(r)
	clip := func(v float64) uint8 { return uint8(math.Round(min(255, max(0, v)))) }
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			yy := 1.164 * (float64(m.Y[m.YOffset(x, y)]) - 16)
			c := m.COffset(x, y)
			cb, cr := float64(m.Cb[c])-128, float64(m.Cr[c])-128
			px := out.Pix[out.PixOffset(x, y):][:4]
			px[0], px[1], px[2], px[3] = clip(yy+1.596*cr), clip(yy-0.391*cb-0.813*cr), clip(yy+2.018*cb), 255
			if alpha != nil {
				a := uint16(alpha.A[alpha.AOffset(x, y)])
				for i := range 3 {
					px[i] = uint8((uint16(px[i])*a + 127) / 255)
				}
				px[3] = uint8(a)
			}
		}
	}
	return out
}

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
