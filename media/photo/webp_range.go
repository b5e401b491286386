package photo

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"sync"

	xwebp "golang.org/x/image/webp"
)

// JPEG's YCbCr (JFIF) spans 0–255; WebP's, like video's, is BT.601
// limited range: luma 16–235, chroma 16–240. webpRange maps the planes
// through two tables, a byte a sample, which costs far less than the RGB
// round trip libwebp would otherwise make.
func webpRange(img *image.YCbCr) (y, cb, cr []byte) {
	lumaLUT, chromaLUT := rangeLUTs()
	return mapPlane(img.Y, &lumaLUT), mapPlane(img.Cb, &chromaLUT), mapPlane(img.Cr, &chromaLUT)
}

func mapPlane(src []byte, lut *[256]byte) []byte {
	dst := make([]byte, len(src))
	for i, v := range src {
		dst[i] = lut[v]
	}
	return dst
}

var rangeLUTs = sync.OnceValues(func() (luma, chroma [256]byte) {
	for i := range 256 {
		luma[i] = byte(math.Round(16 + float64(i)*219/255))
		chroma[i] = byte(math.Round(128 + float64(i-128)*224/255))
	}
	return luma, chroma
})

// decodeWebP decodes a WebP as browsers (libwebp) show it. The x/image
// decoder hands lossy VP8 back as the planes it stores, in an image.YCbCr,
// whose colour model is JPEG's full range; VP8's planes are BT.601 limited
// range (luma 16–235), so read that way every grey moves towards the middle
// and every texture loses about 14 % of its contrast (golang/go#40173).
// SSIM scored that lost contrast against WebP: on the grainy benchmark
// photo, 0.01–0.04. The planes are kept, typed webpPlanes, rather than
// converted (8 bytes a pixel more); lossless WebP decodes to NRGBA and
// needs nothing.
func decodeWebP(data []byte) (image.Image, error) {
	if planes, ok := decodeWebPPlanes(data); ok {
		return webpPlanes{planes}, nil
	}
	img, err := xwebp.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	switch m := img.(type) {
	case *image.YCbCr:
		return webpPlanes{m}, nil
	case *image.NYCbCrA:
		return limitedToRGBA(m), nil
	}
	return img, nil
}

// webpPlanes are a lossy WebP's planes, read in BT.601 limited range.
type webpPlanes struct{ *image.YCbCr }

func (p webpPlanes) ColorModel() color.Model { return color.RGBAModel }

func (p webpPlanes) At(x, y int) color.Color {
	if !image.Pt(x, y).In(p.Rect) {
		return color.RGBA{}
	}
	c := p.COffset(x, y)
	r, g, b := limitedRGB(p.Y[p.YOffset(x, y)], p.Cb[c], p.Cr[c])
	return color.RGBA{r, g, b, 255}
}

// limitedRGB converts one BT.601 limited-range sample as libwebp's yuv.h
// does (its fixed-point constants are these, rounded), taking the pixel's
// chroma from the sample that covers it; libwebp's decoder interpolates
// chroma instead, which moves no luma.
func limitedRGB(y, cb, cr uint8) (r, g, b uint8) {
	t := &limitedTerms
	yy := t.y[y]
	return clip255(yy + t.rCr[cr]), clip255(yy - t.gCb[cb] - t.gCr[cr]), clip255(yy + t.bCb[cb])
}

func clip255(v float64) uint8 { return uint8(math.Round(min(255, max(0, v)))) }

// limitedTerms hold each term of limitedRGB per sample value (10 KiB).
var limitedTerms = func() (t struct{ y, rCr, gCb, gCr, bCb [256]float64 }) {
	for i := range 256 {
		v := float64(i)
		t.y[i], t.rCr[i], t.gCb[i], t.gCr[i], t.bCb[i] = 1.164*(v-16), 1.596*(v-128), 0.391*(v-128), 0.813*(v-128), 2.018*(v-128)
	}
	return t
}()

// limitedToRGBA converts a lossy WebP with alpha: the non-premultiplied
// colours premultiplied, as image.RGBA holds them.
func limitedToRGBA(m *image.NYCbCrA) *image.RGBA {
	r := m.Rect
	out := image.NewRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := m.COffset(x, y)
			px := out.Pix[out.PixOffset(x, y):][:4]
			px[0], px[1], px[2] = limitedRGB(m.Y[m.YOffset(x, y)], m.Cb[c], m.Cr[c])
			a := uint16(m.A[m.AOffset(x, y)])
			for i := range 3 {
				px[i] = uint8((uint16(px[i])*a + 127) / 255)
			}
			px[3] = uint8(a)
		}
	}
	return out
}
