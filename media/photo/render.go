package photo

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"io"
	"time"

	"github.com/disintegration/imaging"
)

// Derivative sizes and JPEG qualities.
const (
	WebMax       = 2048 // fits within WebMax×WebMax
	WebQuality   = 85
	ThumbMax     = 1080
	ThumbQuality = 70
	// SmallMax is a phone card's or a map list's width (540 CSS pixels at
	// 1x, or a half-width tile at 2x).
	SmallMax     = 540
	SmallQuality = 70
	// MarkerSize is the side of the square marker a map pin shows; a photo
	// whose shorter side is less gets a marker of that side instead.
	MarkerSize    = 256
	MarkerQuality = 75
	hashMax       = 100 // ThumbHash input; the format allows no more
)

// qualities are one derivative's first quality in each encoding (ssimHold
// raises a file's when it is short of the JPEG's SSIM). SSIM against
// the unencoded render (TestFormatsKeepTheJPEGsSSIM) set them, with bytes:
// with webpLossy's settings, a WebP 10 above the JPEG's quality (the web
// size's at the JPEG's own) is at least as close to the render as the JPEG
// on smooth photos, at about 40 % of its bytes; flat graphics go lossless
// (picture.encode). A grainy derivative (Grainy) gets webpGrain and
// avifGrain: the least qualities that keep the JPEG's SSIM on the grainy
// benchmark photo, with a margin of 0.003 or more. There a WebP is
// 0.9–1.3× the JPEG's bytes (VP8 spends more than JPEG to keep grain) and
// an AVIF 0.75–1.05×.
//
// A flat graphic's AVIF (4:4:4, see picture.avif) gets avifGraphic: its
// JPEG keeps sharp colour edges, and so must it. The least that keeps the
// JPEG's SSIM on the Display P3 patches, with fewer bytes than the JPEG.
type qualities struct{ jpeg, webp, webpGrain, avif, avifGrain, avifGraphic int }

var (
	webQ    = qualities{WebQuality, 85, 86, 60, 75, 84}
	thumbQ  = qualities{ThumbQuality, 80, 87, 60, 77, 80}
	smallQ  = qualities{SmallQuality, 80, 88, 60, 77, 80}
	markerQ = qualities{MarkerQuality, 85, 89, 60, 80, 84}
)

// forGrain is q with the grain qualities in place of the smooth ones.
func (q qualities) forGrain(grainy bool) qualities {
	if grainy {
		q.webp, q.avif = q.webpGrain, q.avifGrain
	}
	return q
}

// DefaultMaxBytes bounds the input Render reads (phone photos are 2–15 MB).
const DefaultMaxBytes = 64 << 20

// Options bound Render's input; zero values mean the defaults.
type Options struct {
	MaxPixels int64 // DefaultMaxPixels
	MaxBytes  int64 // DefaultMaxBytes
	// Stage, when set, is told the time spent decoding, resizing (orientation
	// and colour included) and encoding, once each per render, so the worker
	// can show where its CPU goes; and, when Encodings asks for more than
	// JPEG, "ssim": holding them to the JPEG's SSIM (measuring, and
	// encoding again when short), which encode then leaves out.
	Stage func(stage string, d time.Duration)
	// Encodings beside JPEG (always made) to render every derivative in:
	// EncodingWebP, EncodingAVIF.
	Encodings []Encoding

	// keep, in tests, sees each derivative's pixels before they are
	// encoded (what SSIM is measured against), and the upright planes the
	// JPEG was compressed from (nil when it was made from those pixels).
	keep func(d Derivative, img *image.RGBA, planes *image.YCbCr)
}

// Derivative is one rendered image in each encoding asked for: sRGB,
// upright, no metadata, the same pixels in each.
type Derivative struct {
	JPEG          []byte
	WebP, AVIF    []byte // nil unless Options.Encodings asked for them
	Width, Height int
	// Reencodes counts the WebPs and AVIFs encoded again, at a higher
	// quality, to reach the JPEG's SSIM (ssimHold).
	Reencodes int
	held      time.Duration // measuring and encoding again
}

// File is the derivative in encoding e, nil when it was not rendered.
func (d Derivative) File(e Encoding) []byte {
	switch e {
	case EncodingJPEG:
		return d.JPEG
	case EncodingWebP:
		return d.WebP
	case EncodingAVIF:
		return d.AVIF
	}
	return nil
}

// Result holds the derivatives of one photo.
type Result struct {
	Web, Thumb    Derivative
	Small         Derivative // fitted within SmallMax
	Marker        Derivative // the centred square, at most MarkerSize a side
	Width, Height int        // displayed size of the original
	ThumbHash     string     // base64 (standard encoding)
}

// Reencodes is the sum of the derivatives' Reencodes.
func (r Result) Reencodes() int {
	return r.Web.Reencodes + r.Thumb.Reencodes + r.Small.Reencodes + r.Marker.Reencodes
}

// Qualities are the qualities of e's web, thumbnail, small and marker
// derivatives, for a photo that is grainy (Grainy) or not, for tools that
// make the same outputs with another library.
func Qualities(e Encoding, grainy bool) (web, thumb, small, marker int) {
	pick := func(q qualities) int {
		q = q.forGrain(grainy)
		switch e {
		case EncodingWebP:
			return q.webp
		case EncodingAVIF:
			return q.avif
		}
		return q.jpeg
	}
	return pick(webQ), pick(thumbQ), pick(smallQ), pick(markerQ)
}

// Render makes the web, thumbnail and marker JPEGs and the ThumbHash of a
// photo that Sniff identified as f. It decodes once and keeps one full-size
// image alive, the dominant cost in memory: a 48 MP JPEG decodes to 72 MB of
// YCbCr and the whole render peaks at ~185 MB of heap (BenchmarkRender48MP;
// see Info.RenderMemory for other inputs). Everything after the first resize
// works on at most WebMax² pixels. No derivative is larger than the photo. ctx is checked between stages; a decode or
// an encode, once started, runs to its end. Errors wrap ErrTooLarge,
// ErrTooManyPixels, ErrUnsupported or ErrCorrupt, or are ctx's.
func Render(ctx context.Context, r io.Reader, f Format, opts Options) (Result, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	data, err := readAll(ctx, r, opts.MaxBytes)
	if err != nil {
		return Result{}, err
	}
	info, err := Probe(bytes.NewReader(data), f, opts.MaxPixels)
	if err != nil {
		return Result{}, err
	}
	return RenderProbed(ctx, data, info, opts)
}

// RenderProbed is Render for a caller that has read the whole photo and
// probed it already (to weigh it, say): data must be the bytes info was
// probed from. Only opts.Stage is used.
func RenderProbed(ctx context.Context, data []byte, info Info, opts Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	sw := stopwatch{last: time.Now()}
	web, shown, err := decodeWeb(data, info, &sw)
	if err != nil {
		return Result{}, err
	}
	res := Result{Width: shown.X, Height: shown.Y}
	if res.Web, err = web.encode(ctx, webQ, opts); err != nil {
		return Result{}, err
	}
	sw.encoded(res.Web)
	// From the web image, not the original: 3 MP in instead of up to 50.
	tw, th := fit(web.width(), web.height(), ThumbMax)
	thumb := web.shrink(tw, th, imaging.CatmullRom)
	sw.lap(&sw.resize)
	if res.Thumb, err = thumb.encode(ctx, thumbQ, opts); err != nil {
		return Result{}, err
	}
	sw.encoded(res.Thumb)
	sw2, sh2 := fit(tw, th, SmallMax)
	small := thumb.shrink(sw2, sh2, imaging.CatmullRom)
	sw.lap(&sw.resize)
	if res.Small, err = small.encode(ctx, smallQ, opts); err != nil {
		return Result{}, err
	}
	sw.encoded(res.Small)
	// From the thumbnail: its shorter side is the crop's, at most 1080.
	marker := thumb.square(MarkerSize)
	sw.lap(&sw.resize)
	if res.Marker, err = marker.encode(ctx, markerQ, opts); err != nil {
		return Result{}, err
	}
	sw.encoded(res.Marker)
	hw, hh := fit(tw, th, hashMax)
	res.ThumbHash = base64.StdEncoding.EncodeToString(thumbHash(thumb.shrink(hw, hh, imaging.Box).toRGBA()))
	sw.lap(&sw.resize)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	sw.report(opts.Stage)
	return res, nil
}

// stopwatch adds up the time of each stage across a render.
type stopwatch struct {
	last                         time.Time
	decode, resize, encode, hold time.Duration
}

// encoded laps the encoding of d, less what holding it to the JPEG's SSIM
// took, which is told apart.
func (s *stopwatch) encoded(d Derivative) {
	s.lap(&s.encode)
	s.encode -= d.held
	s.hold += d.held
}

func (s *stopwatch) lap(into *time.Duration) {
	now := time.Now()
	*into += now.Sub(s.last)
	s.last = now
}

func (s *stopwatch) report(fn func(string, time.Duration)) {
	if fn != nil {
		fn("decode", s.decode)
		fn("resize", s.resize)
		fn("encode", s.encode)
		if s.hold > 0 {
			fn("ssim", s.hold)
		}
	}
}

// decodeWeb decodes the photo and returns it fitted within WebMax, with
// the displayed size of the original. Resizing comes first, in stored
// orientation (a transposed target), so that the orientation and colour
// passes only touch the small image.
func decodeWeb(data []byte, info Info, sw *stopwatch) (picture, image.Point, error) {
	img, full, err := decodeForWeb(data, info)
	if err != nil {
		return picture{}, image.Point{}, err
	}
	sw.lap(&sw.decode)
	defer sw.lap(&sw.resize)
	b := img.Bounds()
	// The HEIF decoder may crop (clap) or turn (irot): trust the pixels, but
	// re-check them against the limit the header promised.
	if b.Dx()*b.Dy() > info.Width*info.Height {
		return picture{}, image.Point{}, fmt.Errorf("%w: decoded %v, header said %d×%d", ErrCorrupt, b.Size(), info.Width, info.Height)
	}
	o := info.Orientation
	if info.decoderOrients {
		o = 1
	}
	w, h, dw, dh := webSize(full.X, full.Y, o)
	rgb, planes := resizeWeb(img, w, h)
	return newPicture(rgb, planes, o, info.DisplayP3), image.Pt(dw, dh), nil
}

// decodeForWeb decodes the photo and returns its pixels with the size of
// the whole frame. A JPEG is decoded at the smallest DCT scale that still
// covers the web size (see decodeJPEGScaled); when that decoder declines,
// the standard decoders decode the whole frame.
func decodeForWeb(data []byte, info Info) (image.Image, image.Point, error) {
	if info.Format == JPEG {
		o := info.Orientation
		w, h, _, _ := webSize(info.Width, info.Height, o)
		if img, err := decodeJPEGScaled(data, info.Width, info.Height, w, h); err == nil {
			return img, image.Pt(info.Width, info.Height), nil
		}
	}
	img, err := decode(data, info.Format)
	if err != nil {
		return nil, image.Point{}, err
	}
	return img, img.Bounds().Size(), nil
}

// webSize is the web size of a w×h frame in stored orientation (a
// transposed target when o swaps the axes), and the frame's displayed size.
func webSize(fw, fh, o int) (w, h, dw, dh int) {
	dw, dh = fw, fh
	if swapsAxes(o) {
		dw, dh = dh, dw
	}
	w, h = fit(dw, dh, WebMax)
	if swapsAxes(o) {
		w, h = h, w
	}
	return w, h, dw, dh
}

// Fit is the size a w×h photo takes fitted within box×box: what the
// renderer makes of it, for callers that name the sizes of a render.
func Fit(w, h, box int) (int, int) { return fit(w, h, box) }

// fit scales w×h down, never up, to fit within box×box, keeping the ratio.
func fit(w, h, box int) (int, int) {
	if w <= box && h <= box {
		return w, h
	}
	if w >= h {
		return box, max(1, (h*box+w/2)/w)
	}
	return max(1, (w*box+h/2)/h), box
}

func encode(ctx context.Context, img *image.RGBA, quality int) (Derivative, error) {
	if err := ctx.Err(); err != nil {
		return Derivative{}, err
	}
	// Neither encoder writes an APPn segment: no EXIF, no GPS, no profile.
	data, err := encodeJPEG(img, quality)
	if err != nil {
		return Derivative{}, fmt.Errorf("photo: encode: %w", err)
	}
	return Derivative{JPEG: data, Width: img.Rect.Dx(), Height: img.Rect.Dy()}, nil
}

// readAll reads the whole photo: every decoder here needs random access or the
// full buffer anyway (the HEIC one copies it into WebAssembly memory).
func readAll(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, r}, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
