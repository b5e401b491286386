package photo

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"

	"github.com/gen2brain/avif"
)

// ssim is the mean structural similarity (Wang et al., 2004) of two images
// of one size, on BT.601 luma, over 8×8 windows every 4 pixels (uniform
// weights, not the paper's Gaussian; C1 = (0.01·255)², C2 = (0.03·255)²):
// 1 for the same pixels, lower as an encoder loses structure. It is the
// measure every WebP and AVIF is held to (at least as close to the pixels
// the JPEG was made from as the JPEG is: picture.holdSSIM), and the README
// names it.
//
// It runs in the render child, on every derivative, so it is made cheap
// without changing a digit of the measure: luma is kept in integers (1000
// times BT.601's weights, so 299R+587G+114B is exact), each pixel is read
// once into the sums of its 4×4 block, a window adds up its four blocks,
// and only two rows of blocks are held, never a plane. Every window's
// variances and covariance are exact integers; only the last step is
// floating point.
func ssim(a, b image.Image) float64 {
	ra, rb := a.Bounds(), b.Bounds()
	if ra.Size() != rb.Size() || ra.Empty() {
		return 0
	}
	w, h := ra.Dx(), ra.Dy()
	bw, bh := (w+3)/4, (h+3)/4
	// Windows start every 4 pixels while they fit; a side under 8 gets
	// one window, cut to the side.
	nwx, nwy := 1, 1
	if w >= 8 {
		nwx = (w-8)/4 + 1
	}
	if h >= 8 {
		nwy = (h-8)/4 + 1
	}
	la, lb := make([]int64, w), make([]int64, w)
	prev, cur := make([]blockSums, bw), make([]blockSums, bw)
	var sum float64
	for by := 0; by < bh && by <= nwy; by++ {
		clear(cur)
		for y := 4 * by; y < min(4*by+4, h); y++ {
			lumaRow(a, ra.Min.Y+y, la)
			lumaRow(b, rb.Min.Y+y, lb)
			for x := range w {
				cur[x/4].add(la[x], lb[x])
			}
		}
		if by > 0 {
			sum += windowRow(prev, cur, nwx)
		}
		prev, cur = cur, prev
	}
	if bh == 1 {
		sum += windowRow(prev, nil, nwx)
	}
	return sum / float64(nwx*nwy)
}

// blockSums are one 4×4 block's sums of luma (a, b), of its squares and
// of its products, over k pixels.
type blockSums struct{ sa, sb, saa, sbb, sab, k int64 }

func (s *blockSums) add(va, vb int64) {
	s.sa += va
	s.sb += vb
	s.saa += va * va
	s.sbb += vb * vb
	s.sab += va * vb
	s.k++
}

func (s *blockSums) plus(o blockSums) {
	s.sa, s.sb, s.saa, s.sbb, s.sab, s.k = s.sa+o.sa, s.sb+o.sb, s.saa+o.saa, s.sbb+o.sbb, s.sab+o.sab, s.k+o.k
}

// The stabilising constants, for luma 1000 times the 0–255 scale.
const (
	ssimC1 = (0.01 * 255 * 1000) * (0.01 * 255 * 1000)
	ssimC2 = (0.03 * 255 * 1000) * (0.03 * 255 * 1000)
)

// windowRow is the sum of SSIM over the first n windows of a row: each
// window the 2×2 blocks from top (and bottom, when there is one) at its
// column and the next.
func windowRow(top, bottom []blockSums, n int) float64 {
	var sum float64
	for x := range n {
		s := top[x]
		if x+1 < len(top) {
			s.plus(top[x+1])
		}
		if bottom != nil {
			s.plus(bottom[x])
			if x+1 < len(bottom) {
				s.plus(bottom[x+1])
			}
		}
		// k²·variance and k²·covariance, exact (at most 64·(2.55·10⁵)²·64).
		k := s.k
		va, vb, cov := k*s.saa-s.sa*s.sa, k*s.sbb-s.sb*s.sb, k*s.sab-s.sa*s.sb
		k2 := float64(k * k)
		fa, fb := float64(s.sa), float64(s.sb)
		sum += (2*fa*fb + ssimC1*k2) * (2*float64(cov) + ssimC2*k2) /
			((fa*fa + fb*fb + ssimC1*k2) * (float64(va) + float64(vb) + ssimC2*k2))
	}
	return sum
}

// lumaRow fills dst with row y of img as 299R+587G+114B, reading the
// layouts the render makes and decodes directly. The RGB values are those
// a viewer shows: color.YCbCr's conversion for JPEG's full range,
// limitedRGB for a lossy WebP's, and color.NRGBAModel for anything else
// (which image.At would go through).
func lumaRow(img image.Image, y int, dst []int64) {
	r := img.Bounds()
	y601 := func(r, g, b uint8) int64 { return 299*int64(r) + 587*int64(g) + 114*int64(b) }
	switch m := img.(type) {
	case *image.RGBA:
		row := m.Pix[m.PixOffset(r.Min.X, y):]
		for i := range dst {
			px := row[4*i : 4*i+4 : 4*i+4]
			if px[3] != 255 {
				c := color.NRGBAModel.Convert(m.At(r.Min.X+i, y)).(color.NRGBA)
				dst[i] = y601(c.R, c.G, c.B)
				continue
			}
			dst[i] = y601(px[0], px[1], px[2])
		}
	case *image.NRGBA:
		row := m.Pix[m.PixOffset(r.Min.X, y):]
		for i := range dst {
			dst[i] = y601(row[4*i], row[4*i+1], row[4*i+2])
		}
	case *image.YCbCr:
		ys, cbs, crs, step := planeRows(m, y, len(dst))
		for i := range dst {
			dst[i] = y601(color.YCbCrToRGB(ys[i], cbs[i>>step], crs[i>>step]))
		}
	case webpPlanes:
		ys, cbs, crs, step := planeRows(m.YCbCr, y, len(dst))
		for i := range dst {
			dst[i] = y601(limitedRGB(ys[i], cbs[i>>step], crs[i>>step]))
		}
	default:
		for i := range dst {
			c := color.NRGBAModel.Convert(img.At(r.Min.X+i, y)).(color.NRGBA)
			dst[i] = y601(c.R, c.G, c.B)
		}
	}
}

// planeRows are row y's samples of m, n wide, and the shift from a luma
// index to its chroma's in the rows: 0 for 4:4:4 and 4:4:0, 1 for 4:2:2
// and 4:2:0. Other ratios (4:1:1, 4:1:0) are given one chroma sample a
// pixel, read through COffset.
func planeRows(m *image.YCbCr, y, n int) (ys, cbs, crs []byte, step uint) {
	x0 := m.Rect.Min.X
	ys = m.Y[m.YOffset(x0, y):][:n]
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio440:
	case image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420:
		if x0%2 == 0 {
			step = 1
			break
		}
		fallthrough
	default:
		cbs, crs = make([]byte, n), make([]byte, n)
		for i := range n {
			c := m.COffset(x0+i, y)
			cbs[i], crs[i] = m.Cb[c], m.Cr[c]
		}
		return ys, cbs, crs, 0
	}
	c := m.COffset(x0, y)
	cn := (n-1)>>step + 1
	return ys, m.Cb[c:][:cn], m.Cr[c:][:cn], step
}

// decodeEncoded decodes a derivative as a viewer would show it, for
// ssim: a lossy WebP in its limited range (decodeWebP).
func decodeEncoded(e Encoding, data []byte) (image.Image, error) {
	var img image.Image
	var err error
	switch e {
	case EncodingJPEG:
		img, err = jpeg.Decode(bytes.NewReader(data))
	case EncodingWebP:
		img, err = decodeWebP(data)
	case EncodingAVIF:
		img, err = avif.Decode(bytes.NewReader(data))
	default:
		err = fmt.Errorf("no decoder for %q", e)
	}
	if err != nil {
		return nil, fmt.Errorf("photo: decode own %s: %w", e, err)
	}
	return img, nil
}
