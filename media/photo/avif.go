package photo

import (
	"bytes"
	"image"

	"github.com/gen2brain/avif"
)

// AVIF goes through libavif (with aom) compiled to WebAssembly: Debian
// ships no static libavif for the static binary to link, and the HEIC
// decoder already runs the same way. Speed 9 of 10 and 4:2:0 are the
// cheapest settings that keep the JPEG's SSIM on photos; it still costs
// seconds a photo, which is why MEDIA_FORMATS leaves it out by default.
const avifSpeed = 9

func encodeAVIF(img image.Image, quality int, chroma image.YCbCrSubsampleRatio) ([]byte, error) {
	var buf bytes.Buffer
	if err := avif.Encode(&buf, img, avif.Options{Quality: quality, QualityAlpha: quality, Speed: avifSpeed,
		ChromaSubsampling: chroma}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
