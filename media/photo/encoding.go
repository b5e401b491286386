package photo

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Encoding is a derivative's file format. Every derivative is a JPEG, the
// one every client decodes; the others are rendered beside it when asked.
type Encoding string

const (
	EncodingJPEG Encoding = "jpeg"
	EncodingWebP Encoding = "webp"
	EncodingAVIF Encoding = "avif"
)

// DefaultEncodings is what MEDIA_FORMATS defaults to: WebP halves the
// bytes of a JPEG of the same width for about as much CPU again as the
// rest of the render, while AVIF costs seconds a photo (see the README).
var DefaultEncodings = []Encoding{EncodingJPEG, EncodingWebP}

// ContentType is the encoding's MIME type.
func (e Encoding) ContentType() string { return "image/" + string(e) }

// Ext is the file-name extension of the encoding.
func (e Encoding) Ext() string {
	if e == EncodingJPEG {
		return "jpg"
	}
	return string(e)
}

// ParseEncodings reads a comma-separated list (MEDIA_FORMATS). JPEG must be
// in it: the current URL fields and every older client depend on it.
func ParseEncodings(s string) ([]Encoding, error) {
	var out []Encoding
	for _, f := range strings.Split(s, ",") {
		e := Encoding(strings.ToLower(strings.TrimSpace(f)))
		switch e {
		case EncodingJPEG, EncodingWebP, EncodingAVIF:
		default:
			return nil, fmt.Errorf("unknown format %q (jpeg, webp, avif)", f)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if !slices.Contains(out, EncodingJPEG) {
		return nil, fmt.Errorf("%q lacks jpeg, which every client decodes", s)
	}
	return out, nil
}

// EncoderCPU is what encoding in encs may add to a render's CPU time, for
// the render child's limits: each WebP and AVIF is decoded and measured
// (ssimHold), and up to holdTries times encoded again when short. A WebP
// costs about 0.2 CPU-s a photo and its re-encodes at most 1 more; AVIF
// about 5 (3.1 to encode, 2 to check: its decoder is WebAssembly too)
// and its re-encodes, at about 1.2 CPU-s a try at 2048 px with the
// check, up to 10 more. The benchmark HEIC, whose WebP and AVIF both fall
// short at three widths, took 17.9 CPU-s in jpeg,webp,avif.
func EncoderCPU(encs []Encoding) time.Duration {
	var d time.Duration
	if slices.Contains(encs, EncodingWebP) {
		d += 2 * time.Second
	}
	if slices.Contains(encs, EncodingAVIF) {
		d += 15 * time.Second
	}
	return d
}

// EncoderMemory is what encoding in encs adds to a render's memory
// (Info.RenderMemory): room for the AVIF encoder's WebAssembly heap and
// its state for a WebMax picture. Measured: `guidepost render` of the
// 12 MP benchmark photo peaks at 88 MiB resident with jpeg,webp and at
// 514 MiB with jpeg,webp,avif, so AVIF adds about 430 MiB; 256 MiB made
// every 12 MP photo fail as too complex in the render child. libwebp works
// in a few MiB.
func EncoderMemory(encs []Encoding) int64 {
	if slices.Contains(encs, EncodingAVIF) {
		return 576 << 20
	}
	return 0
}
