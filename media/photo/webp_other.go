//go:build !cgo

package photo

import (
	"bytes"
	"image"

	"github.com/gen2brain/webp"
)

// WebPCodec names the WebP encoder in use, for the worker's startup log.
// Without cgo it is libwebp in WebAssembly, about seven times the CPU.
const WebPCodec = "libwebp (WebAssembly)"

func encodeWebPRGBA(img *image.RGBA, quality int) ([]byte, error) {
	var buf bytes.Buffer
	if err := webp.Encode(&buf, img, webp.Options{Quality: quality, Method: 4}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeWebPPlanes goes through RGB: the WebAssembly build takes no planes.
func encodeWebPPlanes(img *image.YCbCr, quality int) ([]byte, error) {
	return encodeWebPRGBA(finish(toNRGBA(img), false), quality)
}
