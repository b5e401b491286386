package photo

import (
	"image"
	"image/color"
	"testing"
)

// A flat chart is a graphic; a black and white photo, whose 256 greys are
// fewer than graphicColours, is not: its grain changes nearly every pixel.
func TestGraphicNeedsFewColoursInLongRuns(t *testing.T) {
	const w, h = 600, 400
	chart := image.NewRGBA(image.Rect(0, 0, w, h))
	bars := []color.RGBA{{220, 40, 40, 255}, {40, 160, 60, 255}, {30, 80, 200, 255}, {250, 250, 250, 255}}
	for y := range h {
		for x := range w {
			chart.SetRGBA(x, y, bars[(x/150+y/100)%len(bars)])
		}
	}
	if !(picture{rgb: chart}).graphic() {
		t.Error("a four-colour chart is not a graphic")
	}

	// The worker's own test photo for a grey picture: luma that changes at
	// almost every pixel, constant chroma.
	grey := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for i := range grey.Cb {
		grey.Cb[i], grey.Cr[i] = 128, 128
	}
	for y := range h {
		for x := range w {
			grey.Y[y*grey.YStride+x] = uint8(x/16 + y/16 + (x*y)%7)
		}
	}
	if (picture{planes: grey}).graphic() {
		t.Error("a grainy grey picture of under 256 colours is taken for a graphic")
	}
	greyRGB := image.NewRGBA(grey.Rect)
	for y := range h {
		for x := range w {
			greyRGB.Set(x, y, grey.At(x, y))
		}
	}
	if (picture{rgb: greyRGB}).graphic() {
		t.Error("the same grey picture in RGB is taken for a graphic")
	}
}
