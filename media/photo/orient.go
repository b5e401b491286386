package photo

import (
	"image"

	"github.com/disintegration/imaging"
)

// orient is one of the 8 EXIF orientations as the 2×2 matrix that maps stored
// coordinates (centred, y down) to displayed ones. Matrices make composing
// HEIF's irot/imir sequences exact instead of a hand-written table.
type orient [4]int

var orients = [9]orient{
	1: {1, 0, 0, 1},   // as stored
	2: {-1, 0, 0, 1},  // mirrored left-right
	3: {-1, 0, 0, -1}, // turned 180°
	4: {1, 0, 0, -1},  // mirrored top-bottom
	5: {0, 1, 1, 0},   // transposed: the stored top-left stays top-left
	6: {0, -1, 1, 0},  // turned 90° clockwise to display
	7: {0, -1, -1, 0}, // transversed
	8: {0, 1, -1, 0},  // turned 90° anticlockwise to display
}

func orientationMatrix(o int) orient {
	if o < 1 || o > 8 {
		o = 1
	}
	return orients[o]
}

// mul returns m∘n: n applied first.
func (m orient) mul(n orient) orient {
	return orient{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
	}
}

func (m orient) orientation() int {
	for o := 1; o <= 8; o++ {
		if orients[o] == m {
			return o
		}
	}
	return 1
}

// swapsAxes: orientations 5–8 display the stored width as the height.
func swapsAxes(o int) bool { return o >= 5 && o <= 8 }

// applyOrientation turns stored pixels into displayed ones. It runs on the
// resized image, never the full decode: rotating a 48 MP frame would cost a
// second full-size buffer (~190 MB) for nothing.
func applyOrientation(img *image.NRGBA, o int) *image.NRGBA {
	switch o {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img) // imaging turns anticlockwise
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img)
	}
	return img
}
