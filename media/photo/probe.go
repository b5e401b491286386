package photo

import (
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"
)

// DefaultMaxPixels bounds a photo at 50 MP: a 48 MP phone sensor passes, and
// one render stays within a few hundred MB (see Render).
const DefaultMaxPixels = 50_000_000

// Info describes a photo from its header alone.
type Info struct {
	Format        Format
	Width, Height int // as stored (coded), before orientation
	// Orientation is the EXIF orientation (1–8) that turns the stored pixels
	// into the displayed ones. For HEIC it comes from the irot/imir boxes
	// when present (the HEIF rule: EXIF is then informational only), else
	// from the Exif item.
	Orientation                 int
	DisplayWidth, DisplayHeight int  // after orientation
	DisplayP3                   bool // tagged Display P3: Render converts it to sRGB

	decoderOrients bool // HEIC irot/imir: the decoder applies them itself
	progressive    bool
}

// RenderMemory estimates the peak memory, in bytes, that Render needs for
// this photo, so that a worker can bound the sum over its concurrent renders
// with a weighted semaphore (golang.org/x/sync/semaphore) rather than a
// count: a 48 MP progressive JPEG needs three times what a baseline one does.
// Acquire min(RenderMemory, capacity), so that a photo larger than the whole
// budget runs alone instead of never. Bytes per pixel, from the benchmarks:
// baseline JPEG 3.8 (185 MB peak heap at 48 MP), progressive 11.4 (546 MB),
// HEIC 26 through WebAssembly (315 MB at 12 MP, 1 GB at 48 MP) and ~10 native
// (mostly outside the Go heap); PNG and WebP are estimated from their decoded
// layouts (up to 8 bytes for 16-bit RGBA).
func (i Info) RenderMemory() int64 {
	perPixel := map[Format]float64{JPEG: 4, PNG: 10, WebP: 6, HEIC: 10}[i.Format]
	switch {
	case i.progressive:
		perPixel = 12
	case i.Format == HEIC && HEICDecoder() == "wasm":
		perPixel = 27
	}
	const overhead = 24 << 20 // the input itself and the fixed-size buffers
	return int64(perPixel*float64(i.Width)*float64(i.Height)) + overhead
}

// Probe reads the size, orientation and colour space from the header of a
// sniffed photo, without decoding pixels: it is cheap enough for the upload
// request path (well under a millisecond on a 12 MP JPEG, see
// BenchmarkProbe12MP). A photo above maxPixels (≤ 0: DefaultMaxPixels) is
// rejected with ErrTooManyPixels before anything proportional to its pixel
// count is allocated. r is left at an unspecified offset.
func Probe(r io.ReadSeeker, f Format, maxPixels int64) (Info, error) {
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return Info{}, err
	}
	info := Info{Format: f}
	var m meta
	switch f {
	case JPEG, PNG, WebP:
		cfg, err := decodeConfig(r, f)
		if err != nil {
			return Info{}, fmt.Errorf("%w: %s header: %v", ErrCorrupt, f, err)
		}
		info.Width, info.Height = cfg.Width, cfg.Height
		if err := checkPixels(info.Width, info.Height, maxPixels); err != nil {
			return Info{}, err
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return Info{}, err
		}
		m = readMeta(r, f)
	case HEIC:
		h, err := readHEIF(r)
		if err != nil {
			return Info{}, err
		}
		info.Width, info.Height = h.width, h.height
		if err := checkPixels(info.Width, info.Height, maxPixels); err != nil {
			return Info{}, err
		}
		m = meta{orientation: exifOrientation(h.exif), icc: h.icc}
		if h.transformed {
			m.orientation, info.decoderOrients = h.orientation, true
		}
		info.DisplayP3 = h.nclxPrimaries == nclxDisplayP3
	default:
		return Info{}, fmt.Errorf("%w: format %d", ErrUnsupported, f)
	}
	info.Orientation, info.progressive = max(m.orientation, 1), m.progressive
	info.DisplayP3 = info.DisplayP3 || isDisplayP3(m.icc)
	info.DisplayWidth, info.DisplayHeight = info.Width, info.Height
	if swapsAxes(info.Orientation) {
		info.DisplayWidth, info.DisplayHeight = info.Height, info.Width
	}
	return info, nil
}

func decodeConfig(r io.Reader, f Format) (image.Config, error) {
	switch f {
	case JPEG:
		return jpeg.DecodeConfig(r)
	case PNG:
		return png.DecodeConfig(r)
	default:
		return webp.DecodeConfig(r)
	}
}

func checkPixels(w, h int, maxPixels int64) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: size %d×%d", ErrCorrupt, w, h)
	}
	if int64(w)*int64(h) > maxPixels {
		return fmt.Errorf("%w: %d×%d is over %d pixels", ErrTooManyPixels, w, h, maxPixels)
	}
	return nil
}
