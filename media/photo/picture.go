package photo

import (
	"context"
	"fmt"
	"image"

	"github.com/disintegration/imaging"
)

// picture is a derivative before encoding. Photos decoded to YCbCr (JPEG,
// HEIC, lossy WebP) stay YCbCr planes, in stored orientation and source
// colours, from the decoder to the encoder: resized, turned and compressed
// plane by plane, 1.5 bytes a pixel, never converted to RGB and back. Only
// a colour conversion (Display P3) or another layout needs the upright
// sRGB image, which is made once per derivative.
type picture struct {
	planes      *image.YCbCr // stored orientation, source colours; or nil
	rgb         *image.RGBA  // upright sRGB; nil when planes are encoded as they are
	orientation int
	p3          bool
}

// newPicture takes what resizeWeb made: rgb, or planes.
func newPicture(rgb *image.NRGBA, planes *image.YCbCr, o int, p3 bool) picture {
	p := picture{planes: planes, orientation: o, p3: p3}
	if planes == nil {
		p.rgb = finish(applyOrientation(rgb, o), p3)
	} else if !p.direct() {
		p.rgb = p.toRGBA()
	}
	return p
}

// direct: the planes are encoded as they are.
func (p picture) direct() bool { return rawEncodable(p.planes) && !p.p3 }

func (p picture) width() int  { w, _ := p.size(); return w }
func (p picture) height() int { _, h := p.size(); return h }

// size is the displayed size.
func (p picture) size() (int, int) {
	if p.rgb != nil {
		return p.rgb.Rect.Dx(), p.rgb.Rect.Dy()
	}
	w, h := p.planes.Rect.Dx(), p.planes.Rect.Dy()
	if swapsAxes(p.orientation) {
		return h, w
	}
	return w, h
}

// shrink fits the picture to tw×th (displayed), from the planes when there
// are any, else from the RGB image with filter.
func (p picture) shrink(tw, th int, filter imaging.ResampleFilter) picture {
	if w, h := p.size(); w == tw && h == th {
		return p
	}
	if p.planes == nil {
		return picture{rgb: finish(imaging.Resize(p.rgb, tw, th, filter), false), orientation: 1}
	}
	if swapsAxes(p.orientation) {
		tw, th = th, tw
	}
	return newPicture(nil, resizeYCbCr(p.planes, tw, th), p.orientation, p.p3)
}

// toRGBA is the upright sRGB image.
func (p picture) toRGBA() *image.RGBA {
	if p.rgb != nil {
		return p.rgb
	}
	return finish(applyOrientation(toNRGBA(p.planes), p.orientation), p.p3)
}

// encode compresses the picture as a JPEG and in each of encs, from the
// same pixels: the upright planes when they are encoded directly, else the
// upright sRGB image. A flat graphic (few colours) is compressed for what
// it is: a lossless WebP when that is smaller than the JPEG, and an AVIF
// with full-resolution chroma, so that colour edges stay as sharp as the
// JPEG's (which keeps 4:4:4 chroma when the source has it). Each file
// beside the JPEG is then held to the JPEG's SSIM against the pixels both
// were made from, and encoded again at a higher quality when short
// (ssimHold).
func (p picture) encode(ctx context.Context, q qualities, opts Options) (Derivative, error) {
	encs := opts.Encodings
	var d Derivative
	var up *image.YCbCr
	var err error
	if !p.direct() {
		d, err = encode(ctx, p.rgb, q.jpeg)
	} else if err = ctx.Err(); err == nil {
		up = orientPlanes(p.planes, p.orientation)
		d.Width, d.Height = up.Rect.Dx(), up.Rect.Dy()
		d.JPEG, err = encodeYCbCr(up, q.jpeg)
	}
	if err != nil {
		return Derivative{}, err
	}
	graphic := len(encs) > 0 && p.graphic()
	q = q.forGrain(Grainy(len(d.JPEG), d.Width, d.Height))
	hold := ssimHold{ref: p.rgb, jpeg: d.JPEG}
	if up != nil {
		hold.ref = up
	}
	for _, e := range encs {
		if err := ctx.Err(); err != nil {
			return Derivative{}, err
		}
		switch e {
		case EncodingWebP:
			d.WebP, err = hold.encode(e, q.webp, func(quality int) ([]byte, error) {
				// A graphic's lossless try is made once: kept, or too large.
				lossless := graphic && quality == q.webp
				return p.webp(up, quality, lossless, len(d.JPEG))
			})
		case EncodingAVIF:
			d.AVIF, err = hold.encode(e, p.avifQuality(q, graphic), func(quality int) ([]byte, error) {
				return p.avif(up, quality, graphic)
			})
		}
		if err != nil {
			return Derivative{}, fmt.Errorf("photo: encode %s: %w", e, err)
		}
	}
	d.Reencodes, d.held = hold.reencodes, hold.spent
	if opts.keep != nil {
		opts.keep(d, p.toRGBA(), up)
	}
	return d, nil
}

// webp encodes upright 4:2:0 planes as they are, anything else from the
// RGB image (libwebp subsamples it to 4:2:0 itself, with sharp YUV). A
// graphic is first tried lossless, and kept so when it is smaller than the
// JPEG beside it (jpegBytes).
func (p picture) webp(up *image.YCbCr, quality int, graphic bool, jpegBytes int) ([]byte, error) {
	if graphic {
		out, err := encodeWebPRGBA(p.toRGBA(), webpLossless)
		if err != nil || len(out) < jpegBytes {
			return out, err
		}
	}
	s := webpLossy
	s.quality = quality
	if up != nil && up.SubsampleRatio == image.YCbCrSubsampleRatio420 {
		return encodeWebPPlanes(up, s)
	}
	return encodeWebPRGBA(p.toRGBA(), s)
}

// avifQuality is the AVIF's first quality: a graphic's is at least
// avifGraphic.
func (p picture) avifQuality(q qualities, graphic bool) int {
	if graphic {
		return max(q.avif, q.avifGraphic)
	}
	return q.avif
}

// avif encodes at quality, a graphic with full-resolution chroma.
func (p picture) avif(up *image.YCbCr, quality int, graphic bool) ([]byte, error) {
	chroma := image.YCbCrSubsampleRatio420
	if graphic {
		chroma = image.YCbCrSubsampleRatio444
	}
	if up != nil {
		return encodeAVIF(up, quality, chroma)
	}
	return encodeAVIF(p.rgb, quality, chroma)
}

// square is the centred square of the picture, scaled down (never up) to
// side×side: a map marker shows the middle of the photo at a fixed size.
// The planes keep their stored orientation: a centred square is the same
// region in every orientation (offsets are even, so 4:2:0 chroma keeps
// its pairing, which moves the square by at most a pixel).
func (p picture) square(side int) picture {
	w, h := p.size()
	s := min(w, h)
	out := min(s, side)
	if p.planes == nil {
		crop := p.rgb.SubImage(centredSquare(p.rgb.Rect, s))
		return picture{rgb: finish(imaging.Resize(crop, out, out, imaging.CatmullRom), false), orientation: 1}
	}
	crop := p.planes.SubImage(centredSquare(p.planes.Rect, s)).(*image.YCbCr)
	return newPicture(nil, resizeYCbCr(crop, out, out), p.orientation, p.p3)
}

// centredSquare is the s×s square in the middle of r, at even offsets.
func centredSquare(r image.Rectangle, s int) image.Rectangle {
	x0 := r.Min.X + (r.Dx()-s)/2&^1
	y0 := r.Min.Y + (r.Dy()-s)/2&^1
	return image.Rect(x0, y0, x0+s, y0+s)
}
