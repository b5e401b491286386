//go:build cgo

package photo

/*
#cgo LDFLAGS: -lwebp -lm
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>
#include <webp/decode.h>

// gp_webp_lossy tells an opaque lossy WebP (VP8 planes) apart, with its size.
static int gp_webp_lossy(const uint8_t *data, size_t n, int *w, int *h) {
	WebPBitstreamFeatures f;
	if (WebPGetFeatures(data, n, &f) != VP8_STATUS_OK || f.format != 1 || f.has_alpha) {
		return 0;
	}
	*w = f.width;
	*h = f.height;
	return 1;
}

// What one encode asks of libwebp (webpSettings in Go).
typedef struct {
	float quality;
	int method, sns, filter, sharpness, segments, lossless, near_lossless, threads;
} gp_webp_opts;

// One encode. Planes are 4:2:0 in WebP's own limited range; rgbx is opaque
// RGBA. A lossless encode needs rgbx. Returns the file in memory libwebp
// allocated, freed by the caller with WebPFree.
static int gp_webp(const uint8_t *y, int ys, const uint8_t *u, const uint8_t *v, int uvs,
                   const uint8_t *rgbx, int rs, int w, int h, const gp_webp_opts *o,
                   uint8_t **out, size_t *n) {
	WebPConfig c;
	WebPPicture p;
	WebPMemoryWriter wr;
	if (!WebPConfigInit(&c) || !WebPPictureInit(&p)) {
		return 0;
	}
	if (o->lossless) {
		if (rgbx == NULL || !WebPConfigLosslessPreset(&c, o->method)) {
			return 0;
		}
		c.near_lossless = o->near_lossless;
	} else {
		c.quality = o->quality;
		c.method = o->method;
		c.sns_strength = o->sns;
		c.filter_strength = o->filter;
		c.filter_sharpness = o->sharpness;
		c.segments = o->segments;
		// Sharp RGB to YUV keeps colour edges that plain 4:2:0 blurs.
		c.use_sharp_yuv = rgbx != NULL;
	}
	c.thread_level = o->threads;
	if (!WebPValidateConfig(&c)) {
		return 0;
	}
	p.width = w;
	p.height = h;
	if (rgbx != NULL) {
		p.use_argb = 1;
		if (!WebPPictureImportRGBX(&p, rgbx, rs)) {
			return 0;
		}
	} else {
		p.use_argb = 0;
		p.colorspace = WEBP_YUV420;
		p.y = (uint8_t *)y;
		p.u = (uint8_t *)u;
		p.v = (uint8_t *)v;
		p.y_stride = ys;
		p.uv_stride = uvs;
	}
	WebPMemoryWriterInit(&wr);
	p.writer = WebPMemoryWrite;
	p.custom_ptr = &wr;
	int ok = WebPEncode(&c, &p);
	if (rgbx != NULL) {
		WebPPictureFree(&p);
	}
	if (!ok) {
		WebPMemoryWriterClear(&wr);
		return 0;
	}
	*out = wr.mem;
	*n = wr.size;
	return 1;
}
*/
import "C"

import (
	"errors"
	"image"
	"unsafe"
)

// WebPCodec names the WebP encoder in use, for the worker's startup log.
const WebPCodec = "libwebp"

var errWebP = errors.New("photo: WebP encode failed")

// encodeWebPRGBA compresses an opaque upright sRGB image.
func encodeWebPRGBA(img *image.RGBA, s webpSettings) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w < 1 || h < 1 || w > C.WEBP_MAX_DIMENSION || h > C.WEBP_MAX_DIMENSION {
		return nil, errWebP
	}
	pix := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):]
	return webpCall(nil, 0, nil, nil, 0, (*C.uint8_t)(&pix[0]), img.Stride, w, h, s)
}

// encodeWebPPlanes compresses upright 4:2:0 planes, moved from JPEG's full
// range into WebP's limited one (webpRange) without an RGB detour.
func encodeWebPPlanes(img *image.YCbCr, s webpSettings) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if s.lossless || img.SubsampleRatio != image.YCbCrSubsampleRatio420 || w < 1 || h < 1 || w > C.WEBP_MAX_DIMENSION || h > C.WEBP_MAX_DIMENSION {
		return nil, errWebP
	}
	y, cb, cr := webpRange(img)
	return webpCall((*C.uint8_t)(&y[0]), img.YStride, (*C.uint8_t)(&cb[0]), (*C.uint8_t)(&cr[0]), img.CStride, nil, 0, w, h, s)
}

func webpCall(y *C.uint8_t, ys int, u, v *C.uint8_t, uvs int, rgbx *C.uint8_t, rs, w, h int, s webpSettings) ([]byte, error) {
	o := C.gp_webp_opts{quality: C.float(s.quality), method: C.int(s.method), sns: C.int(s.sns), filter: C.int(s.filter),
		sharpness: C.int(s.sharpness), segments: C.int(s.segments), threads: C.int(s.threads)}
	if s.lossless {
		o.lossless, o.near_lossless = 1, 100
		if s.nearLossless > 0 {
			o.near_lossless = C.int(s.nearLossless)
		}
	}
	var out *C.uint8_t
	var n C.size_t
	if C.gp_webp(y, C.int(ys), u, v, C.int(uvs), rgbx, C.int(rs), C.int(w), C.int(h), &o, &out, &n) == 0 {
		return nil, errWebP
	}
	defer C.WebPFree(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}

// decodeWebPPlanes decodes an opaque lossy WebP into its 4:2:0 planes as
// VP8 stores them (BT.601 limited range) with libwebp, about four times
// faster than golang.org/x/image/webp, whose planes are the same: VP8
// decoding is exact. False for any other WebP.
func decodeWebPPlanes(data []byte) (*image.YCbCr, bool) {
	var w, h C.int
	if len(data) == 0 || C.gp_webp_lossy((*C.uint8_t)(&data[0]), C.size_t(len(data)), &w, &h) == 0 {
		return nil, false
	}
	img := image.NewYCbCr(image.Rect(0, 0, int(w), int(h)), image.YCbCrSubsampleRatio420)
	if C.WebPDecodeYUVInto((*C.uint8_t)(&data[0]), C.size_t(len(data)),
		(*C.uint8_t)(&img.Y[0]), C.size_t(len(img.Y)), C.int(img.YStride),
		(*C.uint8_t)(&img.Cb[0]), C.size_t(len(img.Cb)), C.int(img.CStride),
		(*C.uint8_t)(&img.Cr[0]), C.size_t(len(img.Cr)), C.int(img.CStride)) == nil {
		return nil, false
	}
	return img, true
}
