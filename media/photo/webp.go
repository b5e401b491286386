//go:build cgo

package photo

/*
#cgo LDFLAGS: -lwebp -lm
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>

// One encode on the calling thread (thread_level 0: the worker's
// concurrency, not libwebp's, spends the cores). Planes are 4:2:0 in
// WebP's own limited range; rgbx is opaque RGBA. Returns the file in
// memory libwebp allocated, freed by the caller with WebPFree.
static int gp_webp(const uint8_t *y, int ys, const uint8_t *u, const uint8_t *v, int uvs,
                   const uint8_t *rgbx, int rs, int w, int h, float quality, int method,
                   uint8_t **out, size_t *n) {
	WebPConfig c;
	WebPPicture p;
	WebPMemoryWriter wr;
	if (!WebPConfigPreset(&c, WEBP_PRESET_PHOTO, quality) || !WebPPictureInit(&p)) {
		return 0;
	}
	c.method = method;
	c.thread_level = 0;
	p.width = w;
	p.height = h;
	if (rgbx != NULL) {
		// Sharp RGB to YUV keeps colour edges that plain 4:2:0 blurs.
		c.use_sharp_yuv = 1;
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

// webpMethod is libwebp's effort (0 fastest … 6 smallest); 4 is its
// default and libvips's, the best bytes per CPU second measured here.
const webpMethod = 4

var errWebP = errors.New("photo: WebP encode failed")

// encodeWebPRGBA compresses an opaque upright sRGB image.
func encodeWebPRGBA(img *image.RGBA, quality int) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w < 1 || h < 1 || w > C.WEBP_MAX_DIMENSION || h > C.WEBP_MAX_DIMENSION {
		return nil, errWebP
	}
	pix := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):]
	return webpCall(nil, 0, nil, nil, 0, (*C.uint8_t)(&pix[0]), img.Stride, w, h, quality)
}

// encodeWebPPlanes compresses upright 4:2:0 planes, moved from JPEG's full
// range into WebP's limited one (webpRange) without an RGB detour.
func encodeWebPPlanes(img *image.YCbCr, quality int) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if img.SubsampleRatio != image.YCbCrSubsampleRatio420 || w < 1 || h < 1 || w > C.WEBP_MAX_DIMENSION || h > C.WEBP_MAX_DIMENSION {
		return nil, errWebP
	}
	y, cb, cr := webpRange(img)
	return webpCall((*C.uint8_t)(&y[0]), img.YStride, (*C.uint8_t)(&cb[0]), (*C.uint8_t)(&cr[0]), img.CStride, nil, 0, w, h, quality)
}

func webpCall(y *C.uint8_t, ys int, u, v *C.uint8_t, uvs int, rgbx *C.uint8_t, rs, w, h, quality int) ([]byte, error) {
	var out *C.uint8_t
	var n C.size_t
	if C.gp_webp(y, C.int(ys), u, v, C.int(uvs), rgbx, C.int(rs), C.int(w), C.int(h), C.float(quality), webpMethod, &out, &n) == 0 {
		return nil, errWebP
	}
	defer C.WebPFree(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}
