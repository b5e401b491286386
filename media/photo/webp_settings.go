package photo

import "image"

// webpSettings are libwebp's settings for one file.
type webpSettings struct {
	quality int // lossy: 0–100
	// method is the effort: lossy 0 (fastest) … 6 (smallest); lossless, the
	// level 0 … 9 of WebPConfigLosslessPreset.
	method int
	// sns, filter and sharpness are the spatial noise shaping, the loop
	// filter's strength and its sharpness; segments are the number of
	// quantiser segments (1–4).
	sns, filter, sharpness, segments int
	lossless                         bool
	// nearLossless, with lossless, lets libwebp move values by a few steps
	// where that saves bytes: 0 (off) or 1 … 99, lower moving more.
	nearLossless int
	threads      int // thread_level
}

// webpLossy are the lossy settings every derivative shares; its quality is
// the derivative's own (qualities.webp). SSIM against the unencoded render
// set them (TestFormatsKeepTheJPEGsSSIM): the defaults shape noise and
// smooth block edges for the eye, which costs structure that SSIM counts,
// and the JPEG beside each WebP keeps that structure.
//
// thread_level stays 0: libwebp's threads split the analysis pass, not the
// encode, so they add CPU (the worker's bill) to save wall time, and the
// worker already runs one render a core.
var webpLossy = webpSettings{method: WebPMethod, sns: 25, filter: 60, sharpness: 0, segments: 4}

// WebPMethod is libwebp's effort for lossy derivatives (0 fastest … 6
// smallest), for tools that make the same outputs with another library.
const WebPMethod = 2

// webpLossless is the lossless encode a flat graphic gets when it is smaller
// than the JPEG beside it: exact pixels, so the same structure as the render.
var webpLossless = webpSettings{lossless: true, method: 1}

// graphicColours: a picture with at most this many colours may be a flat
// graphic (a chart, a screenshot, a drawing). Colour photos pass it within
// their first few thousand pixels, so the count costs them nothing.
const graphicColours = 4096

// graphicChanges: a flat graphic is mostly runs of one colour, so at most
// one pixel in graphicChanges differs from the one before it. A black and
// white photo has few colours too (256 greys), but its grain changes
// nearly every pixel: without this it would be tried lossless, which costs
// seconds at 2048 px and is never smaller than its JPEG.
const graphicChanges = 4

// graphic tells whether the picture is a flat graphic: few colours
// (graphicColours) in long runs (graphicChanges). Runs of one colour are
// skipped, so a flat graphic is read at memory speed, and a grainy picture
// stops as soon as it has changed colour too often.
func (p picture) graphic() bool {
	w, h := p.size()
	budget := w * h / graphicChanges
	seen := make(map[uint32]struct{}, 256)
	prev, first := uint32(0), true
	add := func(c uint32) bool {
		if c == prev && !first {
			return true
		}
		prev, first = c, false
		if budget--; budget < 0 {
			return false
		}
		seen[c] = struct{}{}
		return len(seen) <= graphicColours
	}
	if p.rgb != nil {
		r := p.rgb.Rect
		for y := range r.Dy() {
			row := p.rgb.Pix[y*p.rgb.Stride:][:4*r.Dx()]
			for i := 0; i < len(row); i += 4 {
				if !add(uint32(row[i]) | uint32(row[i+1])<<8 | uint32(row[i+2])<<16) {
					return false
				}
			}
		}
		return true
	}
	return planesGraphic(p.planes, add)
}

// planesGraphic counts YCbCr triples, each luma sample with the chroma
// sample that covers it.
func planesGraphic(img *image.YCbCr, add func(uint32) bool) bool {
	r := img.Rect
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.COffset(x, y)
			if !add(uint32(img.Y[img.YOffset(x, y)]) | uint32(img.Cb[c])<<8 | uint32(img.Cr[c])<<16) {
				return false
			}
		}
	}
	return true
}
