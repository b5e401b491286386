package photo

import "image"

// jpegScale is the numerator n of the smallest JPEG decoding scale n/8 that
// keeps a fullW×fullH frame at least minW×minH, so the resize after it only
// ever shrinks.
func jpegScale(fullW, fullH, minW, minH int) int {
	for n := 1; n < 8; n++ {
		if (fullW*n+7)/8 >= minW && (fullH*n+7)/8 >= minH {
			return n
		}
	}
	return 8
}

// subsampleRatio names the chroma layout of a w×h image whose chroma planes
// are cw×ch, as image.YCbCr lays them out.
func subsampleRatio(w, h, cw, ch int) (image.YCbCrSubsampleRatio, bool) {
	var hx, vy int
	switch cw {
	case w:
		hx = 1
	case (w + 1) / 2:
		hx = 2
	case (w + 3) / 4:
		hx = 4
	default:
		return 0, false
	}
	switch ch {
	case h:
		vy = 1
	case (h + 1) / 2:
		vy = 2
	default:
		return 0, false
	}
	switch [2]int{hx, vy} {
	case [2]int{1, 1}:
		return image.YCbCrSubsampleRatio444, true
	case [2]int{2, 1}:
		return image.YCbCrSubsampleRatio422, true
	case [2]int{2, 2}:
		return image.YCbCrSubsampleRatio420, true
	case [2]int{1, 2}:
		return image.YCbCrSubsampleRatio440, true
	case [2]int{4, 1}:
		return image.YCbCrSubsampleRatio411, true
	case [2]int{4, 2}:
		return image.YCbCrSubsampleRatio410, true
	}
	return 0, false
}
