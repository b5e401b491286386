// Package demophoto draws the photos `guidepost seed --demo` uploads, so
// that tools can measure what the demo map serves (tools/workerbench
// -demo) from the same pixels.
package demophoto

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
)

// Count is how many demo guides get a photo.
const Count = 12

// JPEG draws photo n (0 ≤ n < Count), a 1600×1200 landscape: a sky
// gradient, a sun and hills whose colours and shapes vary with n. The
// bytes depend only on n, so a second seed finds them as duplicates.
func JPEG(n int) []byte {
	const w, h = 1600, 1200
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	hue := float64(n) / Count
	sunX, sunY := 300+float64(n*97%1000), 250+float64(n*53%200)
	for y := range h {
		for x := range w {
			fy := float64(y) / h
			c := color.RGBA{uint8(90 + 120*fy*hue), uint8(140 + 80*fy), uint8(230 - 60*fy), 255}
			if math.Hypot(float64(x)-sunX, float64(y)-sunY) < 90 {
				c = color.RGBA{255, 220, 120, 255}
			}
			ridge := 750 + 120*math.Sin(float64(x)/(180+float64(n*13))+float64(n))
			if float64(y) > ridge {
				c = color.RGBA{uint8(40 + 60*hue), uint8(110 + 40*fy), 60, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88})
	return buf.Bytes()
}
