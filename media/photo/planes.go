package photo

import "image"

// newPlanes allocates a w×h YCbCr image whose rows are padded to whole
// 16-pixel JPEG blocks, as libjpeg's raw encoder reads them; padPlanes
// fills the padding.
func newPlanes(w, h int, ratio image.YCbCrSubsampleRatio) *image.YCbCr {
	r := image.Rect(0, 0, w, h)
	cw, ch := chromaSize(r, ratio)
	ys, cs := (w+15)&^15, (cw+15)&^15
	buf := make([]byte, ys*h+2*cs*ch)
	return &image.YCbCr{Y: buf[: ys*h : ys*h], Cb: buf[ys*h : ys*h+cs*ch : ys*h+cs*ch], Cr: buf[ys*h+cs*ch:],
		YStride: ys, CStride: cs, SubsampleRatio: ratio, Rect: r}
}

// padPlanes repeats each row's last sample into its padding, so that the
// blocks on the right edge hold no step for the DCT to ring on.
func padPlanes(img *image.YCbCr) {
	cw, ch := chromaSize(img.Rect, img.SubsampleRatio)
	padPlane(img.Y, img.YStride, img.Rect.Dx(), img.Rect.Dy())
	padPlane(img.Cb, img.CStride, cw, ch)
	padPlane(img.Cr, img.CStride, cw, ch)
}

func padPlane(p []byte, stride, w, h int) {
	if w == stride || w == 0 {
		return
	}
	for y := range h {
		row := p[y*stride:][:stride]
		last := row[w-1]
		for x := w; x < stride; x++ {
			row[x] = last
		}
	}
}

// rawEncodable: planes that encodeYCbCr takes, 4:2:0 or 4:4:4, which
// keep their layout when turned.
func rawEncodable(img *image.YCbCr) bool {
	return img != nil && (img.SubsampleRatio == image.YCbCrSubsampleRatio420 || img.SubsampleRatio == image.YCbCrSubsampleRatio444)
}

// orientPlanes turns stored planes into displayed ones (EXIF orientation
// o), plane by plane: 1.5 bytes a pixel to move instead of 4. Only for
// rawEncodable images.
func orientPlanes(src *image.YCbCr, o int) *image.YCbCr {
	if o < 2 || o > 8 {
		return src
	}
	w, h := src.Rect.Dx(), src.Rect.Dy()
	if swapsAxes(o) {
		w, h = h, w
	}
	dst := newPlanes(w, h, src.SubsampleRatio)
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	scw, sch := chromaSize(src.Rect, src.SubsampleRatio)
	dcw, dch := chromaSize(dst.Rect, dst.SubsampleRatio)
	orientPlane(dst.Y, dst.YStride, w, h, src.Y, src.YStride, sw, sh, o)
	orientPlane(dst.Cb, dst.CStride, dcw, dch, src.Cb, src.CStride, scw, sch, o)
	orientPlane(dst.Cr, dst.CStride, dcw, dch, src.Cr, src.CStride, scw, sch, o)
	padPlanes(dst)
	return dst
}

// orientPlane fills the dw×dh plane dst from the sw×sh plane src: each
// displayed sample (x, y) comes from the stored one the orientation puts
// there.
func orientPlane(dst []byte, dstride, dw, dh int, src []byte, sstride, sw, sh, o int) {
	for y := range dh {
		row := dst[y*dstride:][:dw]
		for x := range row {
			var sx, sy int
			switch o {
			case 2:
				sx, sy = sw-1-x, y
			case 3:
				sx, sy = sw-1-x, sh-1-y
			case 4:
				sx, sy = x, sh-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, sh-1-x
			case 7:
				sx, sy = sw-1-y, sh-1-x
			case 8:
				sx, sy = sw-1-y, x
			}
			row[x] = src[sy*sstride+sx]
		}
	}
}
