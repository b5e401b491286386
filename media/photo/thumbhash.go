package photo

import (
	"image"
	"math"
)

// thumbHash encodes a ≤100×100 image as a ThumbHash (Evan Wallace's
// algorithm, https://evanw.github.io/thumbhash/): the average colour, the
// aspect ratio and a few low-frequency DCT terms of luminance (L), yellow–blue
// (P), red–green (Q) and alpha, in ~25 bytes. Clients render it as the
// placeholder of a map marker before the thumbnail arrives. The arithmetic
// follows the JavaScript reference in float64, so the bytes match it.
func thumbHash(img *image.RGBA) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w < 1 || h < 1 || w > 100 || h > 100 {
		return nil
	}
	// The image is opaque (finish composited it), which fixes the alpha
	// branch of the format: no alpha channel, 7 luminance terms on the long side.
	l, p, q := make([]float64, w*h), make([]float64, w*h), make([]float64, w*h)
	for y := range h {
		for x := range w {
			px := img.Pix[y*img.Stride+4*x:]
			// (1/255)·v, not v/255: the reference's rounding, bit for bit
			r, g, b := 1.0/255*float64(px[0]), 1.0/255*float64(px[1]), 1.0/255*float64(px[2])
			i := y*w + x
			l[i], p[i], q[i] = (r+g+b)/3, (r+g)/2-b, r-g
		}
	}
	lx := max(1, int(math.Round(7*float64(w)/float64(max(w, h)))))
	ly := max(1, int(math.Round(7*float64(h)/float64(max(w, h)))))
	lDC, lAC, lScale := dctChannel(l, w, h, max(3, lx), max(3, ly))
	pDC, pAC, pScale := dctChannel(p, w, h, 3, 3)
	qDC, qAC, qScale := dctChannel(q, w, h, 3, 3)

	landscape := w > h
	header24 := round(63*lDC) | round(31.5+31.5*pDC)<<6 | round(31.5+31.5*qDC)<<12 | round(31*lScale)<<18
	short := lx
	if landscape {
		short = ly
	}
	header16 := uint32(short) | round(63*pScale)<<3 | round(63*qScale)<<9
	if landscape {
		header16 |= 1 << 15
	}
	hash := []byte{byte(header24), byte(header24 >> 8), byte(header24 >> 16), byte(header16), byte(header16 >> 8)}
	odd := false
	for _, ac := range [][]float64{lAC, pAC, qAC} {
		for _, f := range ac {
			v := byte(round(15 * f))
			if odd {
				hash[len(hash)-1] |= v << 4
			} else {
				hash = append(hash, v)
			}
			odd = !odd
		}
	}
	return hash
}

func round(f float64) uint32 { return uint32(math.Floor(f + 0.5)) } // JS Math.round for f ≥ 0

// dctChannel returns the DC term, the AC terms normalised to [0, 1] and their
// scale, over the triangle of frequencies cx·ny < nx·(ny−cy).
func dctChannel(ch []float64, w, h, nx, ny int) (dc float64, ac []float64, scale float64) {
	fx := make([]float64, w)
	for cy := range ny {
		for cx := 0; cx*ny < nx*(ny-cy); cx++ {
			for x := range w {
				fx[x] = math.Cos(math.Pi / float64(w) * float64(cx) * (float64(x) + 0.5))
			}
			f := 0.0
			for y := range h {
				fy := math.Cos(math.Pi / float64(h) * float64(cy) * (float64(y) + 0.5))
				for x := range w {
					f += ch[x+y*w] * fx[x] * fy
				}
			}
			f /= float64(w * h)
			if cx > 0 || cy > 0 {
				ac = append(ac, f)
				scale = max(scale, math.Abs(f))
			} else {
				dc = f
			}
		}
	}
	if scale > 0 {
		for i := range ac {
			ac[i] = 0.5 + 0.5/scale*ac[i]
		}
	}
	return dc, ac, scale
}
