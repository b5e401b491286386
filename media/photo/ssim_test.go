package photo

import (
	"image"
	"image/color"
)

// ssim is the mean structural similarity (Wang et al., 2004) of two images
// of one size, on BT.601 luma, over 8×8 windows every 4 pixels: 1 for the
// same pixels, lower as an encoder loses structure. It is the measure the
// formats' qualities are set by (a WebP at least as close to the render as
// the JPEG it stands beside).
func ssim(a, b image.Image) float64 {
	ra, rb := a.Bounds(), b.Bounds()
	if ra.Size() != rb.Size() {
		return 0
	}
	w, h := ra.Dx(), ra.Dy()
	la, lb := luma(a), luma(b)
	const win, step = 8, 4
	const c1, c2 = (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)
	var sum float64
	var n int
	for y := 0; y+win <= max(h, win); y += step {
		for x := 0; x+win <= max(w, win); x += step {
			var sa, sb, saa, sbb, sab float64
			var k int
			for j := y; j < min(y+win, h); j++ {
				for i := x; i < min(x+win, w); i++ {
					va, vb := la[j*w+i], lb[j*w+i]
					sa, sb, saa, sbb, sab = sa+va, sb+vb, saa+va*va, sbb+vb*vb, sab+va*vb
					k++
				}
			}
			fk := float64(k)
			ma, mb := sa/fk, sb/fk
			va, vb, cov := saa/fk-ma*ma, sbb/fk-mb*mb, sab/fk-ma*mb
			sum += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	return sum / float64(n)
}

func luma(img image.Image) []float64 {
	r := img.Bounds()
	out := make([]float64, 0, r.Dx()*r.Dy())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			out = append(out, 0.299*float64(c.R)+0.587*float64(c.G)+0.114*float64(c.B))
		}
	}
	return out
}
