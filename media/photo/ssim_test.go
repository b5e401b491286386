package photo

import (
	"image"
	"image/color"
)

// ssim is the mean structural similarity (Wang et al., 2004) of two images
// of one size, on BT.601 luma, over 8×8 windows every 4 pixels (uniform
// weights, not the paper's Gaussian; C1 = (0.01·255)², C2 = (0.03·255)²):
// 1 for the same pixels, lower as an encoder loses structure. It is the
// measure the formats' settings are held to (each WebP and AVIF at least as
// close to the render as the JPEG it stands beside), and the README names
// it.
func ssim(a, b image.Image) float64 {
	ra, rb := a.Bounds(), b.Bounds()
	if ra.Size() != rb.Size() {
		return 0
	}
	return ssimLuma(luma(a), luma(b), ra.Dx(), ra.Dy())
}

// ssimLuma is ssim on two w×h luma planes.
func ssimLuma(la, lb []float64, w, h int) float64 {
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

// luma reads typed images directly; the values are those of
// color.NRGBAModel.Convert, which image.At would go through.
func luma(img image.Image) []float64 {
	r := img.Bounds()
	out := make([]float64, 0, r.Dx()*r.Dy())
	y601 := func(r, g, b uint8) float64 { return 0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b) }
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			switch m := img.(type) {
			case *image.RGBA:
				if px := m.Pix[m.PixOffset(x, y):][:4]; px[3] == 255 {
					out = append(out, y601(px[0], px[1], px[2]))
					continue
				}
			case *image.NRGBA:
				px := m.Pix[m.PixOffset(x, y):][:3]
				out = append(out, y601(px[0], px[1], px[2]))
				continue
			case *image.YCbCr:
				c := m.COffset(x, y)
				rr, gg, bb, _ := color.YCbCr{Y: m.Y[m.YOffset(x, y)], Cb: m.Cb[c], Cr: m.Cr[c]}.RGBA()
				out = append(out, y601(uint8(rr>>8), uint8(gg>>8), uint8(bb>>8)))
				continue
			}
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			out = append(out, y601(c.R, c.G, c.B))
		}
	}
	return out
}
