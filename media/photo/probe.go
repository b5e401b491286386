package photo

import (
	"bytes"
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

	decoderOrients bool  // HEIC irot/imir: the decoder applies them itself
	m              meta  // what RenderMemory weighs, from the header
	size           int64 // of the file: a render holds it whole
}

// MaxScans is the most scans (SOS markers) a JPEG may have. image/jpeg
// walks every block of a component once per scan and cannot be stopped
// midway, so scans multiply decode time: a 1 MB file of 40,000 repeated
// end-of-band scans over a 12 MP frame costs minutes of CPU (2.5 ms a scan,
// measured). Real encoders stay far below this: libjpeg's and
// libjpeg-turbo's progressive script (jpeg_simple_progression, which cjpeg
// -progressive, jpegtran -progressive, ImageMagick and Pillow use) writes
// 10 scans for YCbCr and 2+4n for n other components (18 for CMYK);
// mozjpeg's scan optimisation keeps a subset of its 64 candidate scans,
// typically about 10; jpegli's progressive levels and jpegtran -scans
// custom scripts a few more than 10; baseline files have one scan per
// component at most. 64 leaves room for any of them, and bounds the scans'
// cost at 50 MP to well under a second.
const MaxScans = 64

// RenderMemory estimates the peak memory, in bytes, that Render needs for
// this photo, so that a worker can bound the sum over its concurrent renders
// with a weighted semaphore (golang.org/x/sync/semaphore) rather than a
// count. Acquire min(RenderMemory, capacity), so that a photo larger than
// the whole budget runs alone instead of never. It is meant as an upper
// bound, from the header: what image/jpeg allocates depends on the frame's
// components and sampling, not only its pixel count. Bytes per sample, from
// the benchmarks on YCbCr 4:2:0 (1.5 samples a pixel): baseline JPEG 3.2
// (185 MB peak heap at 48 MP, 243 MiB resident in a render child on a
// 19 MB file), progressive 8 (546 MB: 4 bytes of
// coefficient per sample besides the pixels), so a 4:4:4 progressive JPEG
// needs twice what a 4:2:0 one does; plus 8 bytes a pixel when image/jpeg
// converts to RGBA or CMYK. HEIC 26 B/px through WebAssembly (315 MB at
// 12 MP, 1 GB at 48 MP) and ~10 native (mostly outside the Go heap); PNG and
// WebP are estimated from their decoded layouts and the resize buffer.
//
// Where libjpeg-turbo is built in, a YCbCr JPEG decodes at a reduced scale
// (decodeJPEGScaled) and needs far less: see scaledJPEGMemory. A damaged
// file it refuses falls back to image/jpeg, which must then fit that
// weight, or fails as too complex in a render child.
func (i Info) RenderMemory() int64 {
	var perPixel float64
	var overhead int64 = 24 << 20 // the fixed-size buffers
	switch i.Format {
	case JPEG:
		if need, ok := i.scaledJPEGMemory(); ok {
			return need + i.size
		}
		perSample := 3.2
		if i.m.progressive {
			perSample = 12.0 / 1.5
		}
		perPixel = perSample * max(i.m.samples, 1)
		if i.m.converted {
			perPixel += 8
		}
	case PNG:
		perPixel = 1.25 * float64(max(i.m.pngBytes, 4)+4)
	case WebP:
		perPixel = 6
		if i.m.lossless {
			perPixel = 12 // the VP8L decoder's ARGB words, then NRGBA
		}
	case HEIC:
		perPixel = 10
		if HEICDecoder() == "wasm" {
			// and the WebAssembly runtime with its compiled module: 50 MB
			// of data segment and resident set on a 640×480 file
			perPixel, overhead = 27, overhead+64<<20
		}
	}
	return int64(perPixel*float64(i.Width)*float64(i.Height)) + i.size + overhead
}

// scaledJPEGMemory bounds a render through decodeJPEGScaled, whose frame
// decodes at n/8 (s² of the pixels, jpegScale) into planes. Per decoded
// pixel, in the Go heap: the planes (3 samples when a scaled decode of
// 4:2:0 makes 4:4:4 chroma, plus the 4:2:0 average of it) and the resize's
// intermediate rows, at most as many again. A progressive frame also keeps
// every coefficient in libjpeg, 2 bytes a sample at full size. The fixed
// part holds what is WebMax-sized at most: planes, turned copies, the RGB
// images of a Display P3 photo, the encoders' output (40 MiB). 12 MP: 73
// MiB against image/jpeg's 83; 48 MP: 96 against 258 (Go allocates 31 and
// 39 MiB in all).
func (i Info) scaledJPEGMemory() (int64, bool) {
	if !turboJPEG || i.m.converted || i.m.samples <= 1 {
		return 0, false // not a YCbCr frame: image/jpeg decodes it
	}
	w, h, _, _ := webSize(i.Width, i.Height, i.Orientation)
	n := jpegScale(i.Width, i.Height, w, h)
	perDecoded := 2 * i.m.samples
	if n < 8 {
		perDecoded = 2*3 + 0.5
	}
	perPixel := perDecoded * float64(n*n) / 64
	if i.m.progressive {
		perPixel += 2 * i.m.samples
	}
	return int64(perPixel*float64(i.Width)*float64(i.Height)) + 40<<20, true
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
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return Info{}, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return Info{}, err
	}
	info := Info{Format: f, size: size}
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
		if err := checkStructure(info, m); err != nil {
			return Info{}, err
		}
	case HEIC:
		h, err := readHEIF(r)
		if err != nil {
			return Info{}, err
		}
		info.Width, info.Height = h.width, h.height
		if err := checkPixels(info.Width, info.Height, maxPixels); err != nil {
			return Info{}, err
		}
		m = meta{orientation: exifOrientation(h.exif), icc: h.icc, exif: h.exif}
		if h.transformed {
			m.orientation, info.decoderOrients = h.orientation, true
		}
		info.DisplayP3 = h.nclxPrimaries == nclxDisplayP3
	default:
		return Info{}, fmt.Errorf("%w: format %d", ErrUnsupported, f)
	}
	info.Orientation, info.m = max(m.orientation, 1), m
	info.m.icc, info.m.orientation = nil, 0 // read once, into DisplayP3 and Orientation
	info.DisplayP3 = info.DisplayP3 || isDisplayP3(m.icc)
	info.DisplayWidth, info.DisplayHeight = info.Width, info.Height
	if swapsAxes(info.Orientation) {
		info.DisplayWidth, info.DisplayHeight = info.Height, info.Width
	}
	return info, nil
}

// ProbeBytes sniffs and probes a photo held in memory.
func ProbeBytes(data []byte, maxPixels int64) (Info, error) {
	f, err := Sniff(data)
	if err != nil {
		return Info{}, err
	}
	return Probe(bytes.NewReader(data), f, maxPixels)
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

// checkStructure refuses what the header scan found to make decoding cost
// more than the header's size says (too many JPEG scans), or a WebP frame
// of another size than its canvas, which x/image/webp would refuse only in
// the worker: refused at upload, both are a 422, not a failed photo later.
func checkStructure(info Info, m meta) error {
	switch {
	case info.Format == JPEG && m.scans > MaxScans:
		return fmt.Errorf("%w: %d scans, more than the %d any encoder writes", ErrTooComplex, m.scans, MaxScans)
	case info.Format == WebP && m.frameW > 0 && (m.frameW != info.Width || m.frameH != info.Height):
		return fmt.Errorf("%w: webp canvas %d×%d holds a %d×%d frame", ErrCorrupt, info.Width, info.Height, m.frameW, m.frameH)
	}
	return nil
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
