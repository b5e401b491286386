package photo

import (
	"encoding/base64"
	"image"
	"math"
	"testing"
)

// Vectors from the reference implementation (npm thumbhash 0.1.1,
// rgbaToThumbHash) over the gradient below.
func TestThumbHashReferenceVectors(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		want string
	}{
		{37, 23, "XggOLJpwdndwd3d3d3aggQr4eA=="},
		{20, 50, "XwgKKxpwcHeIdod3kJAJ+Hg="},
		{100, 100, "HwgKNxpwdndwd3h3eGd3d3h3BwiIgH8H"},
		{100, 75, "HwgKNZpwdndwd3h3d3d3d4CACPh3"},
	} {
		got := base64.StdEncoding.EncodeToString(thumbHash(gradient(tc.w, tc.h)))
		if got != tc.want {
			t.Errorf("%d×%d: %s; want %s", tc.w, tc.h, got, tc.want)
		}
	}
}

func gradient(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			p := img.Pix[y*img.Stride+4*x:]
			p[0], p[1], p[2], p[3] = uint8(255*x/(w-1)), uint8(255*y/(h-1)), uint8(x*y*5%256), 255
		}
	}
	return img
}

// The average colour that clients read from the hash is the photo's.
func TestThumbHashAverageColour(t *testing.T) {
	res := renderFile(t, "photo.jpg")
	hash, _ := base64.StdEncoding.DecodeString(res.ThumbHash)
	r, g, b := averageRGB(hash)
	img := decodeJPEG(t, res.Thumb.JPEG)
	var sum [3]float64
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			sum[0], sum[1], sum[2] = sum[0]+float64(cr>>8), sum[1]+float64(cg>>8), sum[2]+float64(cb>>8)
		}
	}
	n := float64(bd.Dx()*bd.Dy()) * 255
	for i, got := range []float64{r, g, b} {
		if want := sum[i] / n; math.Abs(got-want) > 0.04 {
			t.Errorf("channel %d: hash says %.3f, thumbnail averages %.3f", i, got, want)
		}
	}
	if len(hash) > 25 || hash[4]&0x80 == 0 { // 640×480 is landscape
		t.Errorf("hash %x: wrong length or orientation bit", hash)
	}
}

// averageRGB is thumbHashToAverageRGBA from the reference.
func averageRGB(hash []byte) (r, g, b float64) {
	header := uint32(hash[0]) | uint32(hash[1])<<8 | uint32(hash[2])<<16
	l := float64(header&63) / 63
	p := float64(header>>6&63)/31.5 - 1
	q := float64(header>>12&63)/31.5 - 1
	b = l - 2.0/3*p
	r = (3*l - b + q) / 2
	g = r - q
	clamp := func(v float64) float64 { return min(max(v, 0), 1) }
	return clamp(r), clamp(g), clamp(b)
}
