//go:build cgo

package photo

/*
#cgo LDFLAGS: -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

// libjpeg reports errors by calling error_exit, which must not return:
// jump back to the entry point, whose frame is always a C frame.
typedef struct {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	char msg[JMSG_LENGTH_MAX];
} gp_err;

static void gp_error_exit(j_common_ptr c) {
	gp_err *e = (gp_err *)c->err;
	(*c->err->format_message)(c, e->msg);
	longjmp(e->jb, 1);
}

// A warning means damaged data that libjpeg would paper over (grey blocks
// after a truncation, say): give up, so the caller can let image/jpeg judge
// the file. Junk between markers is only a warning and decodes as before.
static void gp_emit_message(j_common_ptr c, int level) {
	if (level < 0 && c->err->msg_code != JWRN_EXTRANEOUS_DATA) {
		gp_error_exit(c);
	}
}

static void gp_err_init(gp_err *e) {
	jpeg_std_error(&e->pub);
	e->pub.error_exit = gp_error_exit;
	e->pub.emit_message = gp_emit_message;
	e->msg[0] = 0;
}

// The planes' layout at a scale of num/8: out[0..1] the luma size, out[2..3]
// the chroma size, out[4..5] the luma stride and rows to allocate, out[6..7]
// the chroma ones. Returns 1 when the frame is not 3-component YCbCr with
// both chroma components sampled alike (the caller decodes it otherwise).
static int gp_layout(struct jpeg_decompress_struct *d, int *out) {
	if (d->jpeg_color_space != JCS_YCbCr || d->num_components != 3) {
		return 1;
	}
	jpeg_component_info *y = &d->comp_info[0], *cb = &d->comp_info[1], *cr = &d->comp_info[2];
	if (cb->h_samp_factor != cr->h_samp_factor || cb->v_samp_factor != cr->v_samp_factor ||
	    cb->DCT_scaled_size != cr->DCT_scaled_size) {
		return 1;
	}
	int imcus = d->total_iMCU_rows;
	out[0] = y->downsampled_width;
	out[1] = y->downsampled_height;
	out[2] = cb->downsampled_width;
	out[3] = cb->downsampled_height;
	// Raw output writes whole blocks: a row is width_in_blocks blocks
	// wide, and the last iMCU row is written in full.
	out[4] = (y->width_in_blocks + d->max_h_samp_factor) * y->DCT_scaled_size;
	out[5] = imcus * y->v_samp_factor * y->DCT_scaled_size;
	out[6] = (cb->width_in_blocks + d->max_h_samp_factor) * cb->DCT_scaled_size;
	out[7] = imcus * cb->v_samp_factor * cb->DCT_scaled_size;
	// The file's own chroma sampling, which a scaled decode may not keep.
	out[8] = d->max_h_samp_factor / cb->h_samp_factor;
	out[9] = d->max_v_samp_factor / cb->v_samp_factor;
	return 0;
}

static void gp_setup(struct jpeg_decompress_struct *d, int scale_num) {
	d->scale_num = scale_num;
	d->scale_denom = 8;
	d->raw_data_out = TRUE;
	d->out_color_space = JCS_YCbCr;
	d->dct_method = JDCT_ISLOW;
}

// gp_decode, without planes (yp NULL), reads the header and fills lay as
// gp_layout does, returning 0 or 1 (not for raw decoding). With planes laid
// out as lay says, it decodes into them, without colour conversion or
// upsampling. -1 is an error, its message in msg.
static int gp_decode(const unsigned char *data, unsigned long len, int scale_num, int *lay,
                     unsigned char *yp, unsigned char *cbp, unsigned char *crp, char *msg) {
	struct jpeg_decompress_struct d;
	gp_err e;
	gp_err_init(&e);
	d.err = &e.pub;
	jpeg_create_decompress(&d);
	if (setjmp(e.jb)) {
		strcpy(msg, e.msg);
		jpeg_destroy_decompress(&d);
		return -1;
	}
	jpeg_mem_src(&d, data, len);
	jpeg_read_header(&d, TRUE);
	gp_setup(&d, scale_num);
	if (yp == NULL) {
		jpeg_calc_output_dimensions(&d);
		int rc = gp_layout(&d, lay);
		jpeg_destroy_decompress(&d);
		return rc;
	}
	jpeg_start_decompress(&d);
	int got[10];
	if (gp_layout(&d, got) != 0 || memcmp(got, lay, sizeof got) != 0) {
		strcpy(msg, "layout changed between probe and decode");
		jpeg_destroy_decompress(&d);
		return -1;
	}
	int yrows = d.comp_info[0].v_samp_factor * d.comp_info[0].DCT_scaled_size;
	int crows = d.comp_info[1].v_samp_factor * d.comp_info[1].DCT_scaled_size;
	JSAMPROW *ry = (JSAMPROW *)(*d.mem->alloc_small)((j_common_ptr)&d, JPOOL_IMAGE, (yrows + 2 * crows) * sizeof(JSAMPROW));
	JSAMPROW *rcb = ry + yrows, *rcr = rcb + crows;
	JSAMPARRAY planes[3] = {ry, rcb, rcr};
	JDIMENSION lines = d.max_v_samp_factor * d.min_DCT_scaled_size;
	for (int imcu = 0; d.output_scanline < d.output_height; imcu++) {
		for (int i = 0; i < yrows; i++) {
			ry[i] = yp + (size_t)(imcu * yrows + i) * lay[4];
		}
		for (int i = 0; i < crows; i++) {
			rcb[i] = cbp + (size_t)(imcu * crows + i) * lay[6];
			rcr[i] = crp + (size_t)(imcu * crows + i) * lay[6];
		}
		if (jpeg_read_raw_data(&d, planes, lines) == 0) {
			strcpy(msg, "suspended");
			jpeg_destroy_decompress(&d);
			return -1;
		}
	}
	jpeg_destroy_decompress(&d); // what follows the last scan is not needed
	return 0;
}

// gp_encode compresses, without any APPn segment (no JFIF, EXIF or
// profile), either 4-byte RGBX rows (sub 0: p0 with stride s0, made 4:2:0
// as image/jpeg does) or YCbCr planes as they are (sub 2: 4:2:0, 1:
// 4:4:4; p0 luma with stride s0, p1 and p2 chroma with stride s1), which
// skips colour conversion and chroma downsampling. Plane rows past the
// last repeat it; the planes' strides must cover whole blocks, their
// padding columns repeating the last one. *out is malloc'ed: the caller
// frees it.
static int gp_encode(const unsigned char *p0, int s0, const unsigned char *p1, const unsigned char *p2, int s1,
                     int w, int h, int sub, int quality, unsigned char **out, unsigned long *outlen, char *msg) {
	struct jpeg_compress_struct c;
	gp_err e;
	gp_err_init(&e);
	c.err = &e.pub;
	*out = NULL;
	*outlen = 0;
	jpeg_create_compress(&c);
	if (setjmp(e.jb)) {
		strcpy(msg, e.msg);
		jpeg_destroy_compress(&c);
		free(*out);
		*out = NULL;
		return -1;
	}
	jpeg_mem_dest(&c, out, outlen);
	c.image_width = w;
	c.image_height = h;
	c.input_components = sub ? 3 : 4;
	c.in_color_space = sub ? JCS_YCbCr : JCS_EXT_RGBX;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, quality, TRUE);
	c.write_JFIF_header = FALSE;
	c.dct_method = JDCT_ISLOW;
	if (sub) {
		c.raw_data_in = TRUE;
		c.comp_info[0].h_samp_factor = c.comp_info[0].v_samp_factor = sub;
		for (int i = 1; i < 3; i++) {
			c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
		}
	}
	jpeg_start_compress(&c, TRUE);
	int yrows = sub ? 8 * sub : 16, ch = sub ? (h + sub - 1) / sub : 0;
	JSAMPROW ry[16], rcb[8], rcr[8];
	JSAMPARRAY planes[3] = {ry, rcb, rcr};
	while (c.next_scanline < c.image_height) {
		int y0 = c.next_scanline;
		if (!sub) {
			int n = 0;
			for (; n < yrows && y0 + n < h; n++) {
				ry[n] = (JSAMPROW)(p0 + (size_t)(y0 + n) * s0);
			}
			jpeg_write_scanlines(&c, ry, n);
			continue;
		}
		for (int i = 0; i < yrows; i++) {
			int y = y0 + i < h ? y0 + i : h - 1;
			ry[i] = (JSAMPROW)(p0 + (size_t)y * s0);
		}
		for (int i = 0, c0 = y0 / sub; i < 8; i++) {
			int y = c0 + i < ch ? c0 + i : ch - 1;
			rcb[i] = (JSAMPROW)(p1 + (size_t)y * s1);
			rcr[i] = (JSAMPROW)(p2 + (size_t)y * s1);
		}
		jpeg_write_raw_data(&c, planes, yrows);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"unsafe"
)

// turboJPEG: decodeJPEGScaled decodes YCbCr JPEGs (RenderMemory weighs them so).
const turboJPEG = true

// JPEGCodec names the JPEG codec in use, for the worker's startup log.
const JPEGCodec = "libjpeg-turbo"

// errNotRaw: a frame the raw decoder does not take (greyscale, CMYK, odd
// sampling); image/jpeg decodes it.
var errNotRaw = errors.New("photo: not a YCbCr frame")

// decodeJPEGScaled decodes a JPEG with libjpeg-turbo at the smallest scale
// n/8 that is still at least minW×minH, straight into YCbCr planes: the
// inverse DCT does the first, largest step of the downscale, and neither
// chroma upsampling nor colour conversion runs on the full-size frame. A
// 12 MP photo for a 2048 px target decodes at 5/8. Any error or warning
// (truncated or damaged data) returns an error, and the caller lets
// image/jpeg decide, so libjpeg-turbo never accepts what image/jpeg would
// refuse and never hides damage under grey blocks.
func decodeJPEGScaled(data []byte, fullW, fullH, minW, minH int) (*image.YCbCr, error) {
	if len(data) == 0 {
		return nil, errNotRaw
	}
	num := jpegScale(fullW, fullH, minW, minH)
	var lay [10]C.int
	var msg [C.JMSG_LENGTH_MAX]C.char
	src := (*C.uchar)(unsafe.Pointer(&data[0]))
	switch C.gp_decode(src, C.ulong(len(data)), C.int(num), &lay[0], nil, nil, nil, &msg[0]) {
	case 1:
		return nil, errNotRaw
	case -1:
		return nil, fmt.Errorf("libjpeg: %s", C.GoString(&msg[0]))
	}
	w, h, cw, ch := int(lay[0]), int(lay[1]), int(lay[2]), int(lay[3])
	ratio, ok := subsampleRatio(w, h, cw, ch)
	if !ok || w < 1 || h < 1 {
		return nil, errNotRaw
	}
	ys, yr, cs, cr := int(lay[4]), int(lay[5]), int(lay[6]), int(lay[7])
	y := make([]byte, ys*yr)
	cbcr := make([]byte, 2*cs*cr)
	if C.gp_decode(src, C.ulong(len(data)), C.int(num), &lay[0],
		(*C.uchar)(unsafe.Pointer(&y[0])), (*C.uchar)(unsafe.Pointer(&cbcr[0])),
		(*C.uchar)(unsafe.Pointer(&cbcr[cs*cr])), &msg[0]) != 0 {
		return nil, fmt.Errorf("libjpeg: %s", C.GoString(&msg[0]))
	}
	img := &image.YCbCr{Y: y, Cb: cbcr[: cs*cr : cs*cr], Cr: cbcr[cs*cr:], YStride: ys, CStride: cs,
		SubsampleRatio: ratio, Rect: image.Rect(0, 0, w, h)}
	if ratio == image.YCbCrSubsampleRatio444 && lay[8] == 2 && lay[9] == 2 {
		return to420(img), nil
	}
	return img, nil
}

// to420 averages 4:4:4 chroma down to 4:2:0. A scaled decode of a 4:2:0
// file (nearly every photo) makes its chroma at the luma's size, through a
// larger inverse DCT: that is the file's chroma upsampled, so averaging it
// back costs nothing in detail, and halves the samples to resize.
func to420(src *image.YCbCr) *image.YCbCr {
	cw, ch := chromaSize(src.Rect, image.YCbCrSubsampleRatio420)
	cbcr := make([]byte, 2*cw*ch)
	cb, cr := cbcr[:cw*ch:cw*ch], cbcr[cw*ch:]
	halvePlane(cb, cw, src.Cb, src.CStride)
	halvePlane(cr, cw, src.Cr, src.CStride)
	return &image.YCbCr{Y: src.Y, Cb: cb, Cr: cr, YStride: src.YStride, CStride: cw,
		SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: src.Rect}
}

// encodeJPEG compresses with libjpeg-turbo: about 4× faster than
// image/jpeg at the same quality scale and the same 4:2:0 layout.
func encodeJPEG(img *image.RGBA, quality int) ([]byte, error) {
	if img.Rect.Dx() < 1 || img.Rect.Dy() < 1 {
		return nil, errors.New("photo: empty image")
	}
	pix := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):]
	return compress(&pix[0], img.Stride, nil, nil, 0, img.Rect.Dx(), img.Rect.Dy(), 0, quality)
}

// encodeYCbCr compresses 4:2:0 or 4:4:4 planes laid out by newPlanes
// straight, without converting them to RGB and back.
func encodeYCbCr(img *image.YCbCr, quality int) ([]byte, error) {
	sub := 2
	if img.SubsampleRatio == image.YCbCrSubsampleRatio444 {
		sub = 1
	}
	return compress(&img.Y[0], img.YStride, &img.Cb[0], &img.Cr[0], img.CStride, img.Rect.Dx(), img.Rect.Dy(), sub, quality)
}

// compress runs gp_encode and copies its output into Go memory.
func compress(p0 *byte, s0 int, p1, p2 *byte, s1, w, h, sub, quality int) ([]byte, error) {
	var out *C.uchar
	var n C.ulong
	var msg [C.JMSG_LENGTH_MAX]C.char
	if C.gp_encode((*C.uchar)(p0), C.int(s0), (*C.uchar)(p1), (*C.uchar)(p2), C.int(s1),
		C.int(w), C.int(h), C.int(sub), C.int(quality), &out, &n, &msg[0]) != 0 {
		return nil, fmt.Errorf("libjpeg: %s", C.GoString(&msg[0]))
	}
	defer C.free(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}
