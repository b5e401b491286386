package photo

import (
	"image"
	"math"
	"sync"
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
