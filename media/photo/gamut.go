package photo

import (
	"image"
	"math"
	"sync"
)

// p3ToSRGB maps linear Display P3 to linear sRGB. Both share the D65 white, so
// no adaptation is involved: it is M(sRGB)⁻¹·M(P3) from the primaries, the
// matrix the test derives independently.
var p3ToSRGB = [9]float32{
	1.2249401, -0.2249404, 0,
	-0.0420569, 1.0420571, 0,
	-0.0196376, -0.0786361, 1.0982735,
}

// Display P3 uses the sRGB transfer curve, so one pair of tables serves both
// directions. The encoding table has 2¹⁶ entries so that dark tones, where
// the curve is steep, round to the nearest 8-bit value.
var luts = sync.OnceValues(func() (dec [256]float32, enc []uint8) {
	for i := range dec {
		c := float64(i) / 255
		if c <= 0.04045 {
			dec[i] = float32(c / 12.92)
		} else {
			dec[i] = float32(math.Pow((c+0.055)/1.055, 2.4))
		}
	}
	enc = make([]uint8, 1<<16)
	for i := range enc {
		l := float64(i) / (1<<16 - 1)
		var c float64
		if l <= 0.0031308 {
			c = l * 12.92
		} else {
			c = 1.055*math.Pow(l, 1/2.4) - 0.055
		}
		enc[i] = uint8(math.Round(c * 255))
	}
	return dec, enc
})

// finish makes the opaque sRGB image that the JPEG encoder takes on its fast
// path (*image.RGBA): it composites any alpha over white, converts Display P3
// to sRGB when p3 is set, and reuses img's pixel buffer. It runs on the
// resized image, so its cost is per output pixel, not per source pixel.
func finish(img *image.NRGBA, p3 bool) *image.RGBA {
	dec, enc := luts()
	for y := range img.Rect.Dy() {
		row := img.Pix[y*img.Stride : y*img.Stride+4*img.Rect.Dx()]
		for i := 0; i < len(row); i += 4 {
			px := row[i : i+4 : i+4]
			if a := uint32(px[3]); a != 255 {
				for c := range 3 {
					px[c] = uint8((uint32(px[c])*a + 255*(255-a) + 127) / 255)
				}
				px[3] = 255
			}
			if p3 {
				r, g, b := dec[px[0]], dec[px[1]], dec[px[2]]
				m := &p3ToSRGB
				px[0] = enc[quantize(m[0]*r+m[1]*g+m[2]*b)]
				px[1] = enc[quantize(m[3]*r+m[4]*g+m[5]*b)]
				px[2] = enc[quantize(m[6]*r+m[7]*g+m[8]*b)]
			}
		}
	}
	return &image.RGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
}

// quantize clamps out-of-gamut values (P3's saturated colours have no sRGB
// equivalent) and indexes the encoding table.
func quantize(l float32) int {
	return int(min(max(l, 0), 1)*(1<<16-1) + 0.5)
}
