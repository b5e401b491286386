//go:build !cgo

package photo

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
)

// turboJPEG: decodeJPEGScaled decodes YCbCr JPEGs (RenderMemory weighs them so).
const turboJPEG = false

// JPEGCodec names the JPEG codec in use, for the worker's startup log.
// Without cgo it is the standard library's, several times slower.
const JPEGCodec = "image/jpeg"

var errNotRaw = errors.New("photo: no scaled JPEG decoder without cgo")

// decodeJPEGScaled needs libjpeg-turbo: without cgo the caller decodes the
// whole frame with image/jpeg.
func decodeJPEGScaled(data []byte, fullW, fullH, minW, minH int) (*image.YCbCr, error) {
	return nil, errNotRaw
}

func encodeJPEG(img *image.RGBA, quality int) ([]byte, error) {
	var buf bytes.Buffer
	// image/jpeg writes no APPn segment at all: no EXIF, no GPS, no profile.
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeYCbCr compresses planes laid out by newPlanes; image/jpeg takes
// *image.YCbCr without an RGB detour too.
func encodeYCbCr(img *image.YCbCr, quality int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
