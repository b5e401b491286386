//go:build !cgo

package photo

import (
	"bytes"
	"image"

	"github.com/gen2brain/webp"
)

// WebPCodec names the WebP encoder in use, for the worker's startup log.
// Without cgo it is libwebp in WebAssembly, about seven times the CPU,
// with libwebp's defaults besides the quality and method.
const WebPCodec = "libwebp (WebAssembly)"

func encodeWebPRGBA(img *image.RGBA, s webpSettings) ([]byte, error) {
	o := webp.Options{Quality: s.quality, Method: s.method}
	if s.lossless {
		// WebPConfigLosslessPreset's method and quality for each level.
		presets := [10][2]int{{0, 0}, {1, 20}, {2, 25}, {3, 30}, {3, 50}, {4, 50}, {4, 75}, {4, 90}, {5, 90}, {6, 100}}
		o = webp.Options{Lossless: true, Method: presets[s.method][0], Quality: presets[s.method][1]}
	}
	var buf bytes.Buffer
	if err := webp.Encode(&buf, img, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeWebPPlanes goes through RGB: the WebAssembly build takes no planes.
func encodeWebPPlanes(img *image.YCbCr, s webpSettings) ([]byte, error) {
	return encodeWebPRGBA(finish(toNRGBA(img), false), s)
}

// decodeWebPPlanes: the WebAssembly build leaves decoding to
// golang.org/x/image/webp.
func decodeWebPPlanes([]byte) (*image.YCbCr, bool) { return nil, false }
