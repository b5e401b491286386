package photo

import "image"

// preshrink halves a decoded YCbCr image with a 2×2 box filter, plane by
// plane, for as long as it stays at least twice the target size. Averaging
// is the right prefilter for an exact 2× step and costs one read of each
// sample, while the resize filter's cost grows with the source's pixel count:
// on a 48 MP JPEG this saves most of the resize time and halves its
// intermediate buffer. 12 MP photos (less than 2× a 2048 box) skip it.
func preshrink(img image.Image, w, h int) image.Image {
	for {
		y, ok := img.(*image.YCbCr)
		if !ok || y.Rect.Min != (image.Point{}) || y.Rect.Dx() < 2*w || y.Rect.Dy() < 2*h {
			return img
		}
		img = halve(y)
	}
}

func halve(src *image.YCbCr) *image.YCbCr {
	dst := image.NewYCbCr(image.Rect(0, 0, src.Rect.Dx()/2, src.Rect.Dy()/2), src.SubsampleRatio)
	halvePlane(dst.Y, dst.YStride, src.Y, src.YStride)
	halvePlane(dst.Cb, dst.CStride, src.Cb, src.CStride)
	halvePlane(dst.Cr, dst.CStride, src.Cr, src.CStride)
	return dst
}

// halvePlane fills dst (its rows given by dstStride) from twice as many rows
// and columns of src; the source's last odd row or column, if any, repeats.
// The ratio of luma to chroma is the same in both images, so each chroma
// sample still covers the same luma samples.
func halvePlane(dst []byte, dstStride int, src []byte, srcStride int) {
	rows, srcRows := len(dst)/dstStride, (len(src)+srcStride-1)/srcStride
	for y := range rows {
		r0 := src[min(2*y, srcRows-1)*srcStride:]
		r1 := src[min(2*y+1, srcRows-1)*srcStride:]
		r0, r1 = r0[:min(len(r0), srcStride)], r1[:min(len(r1), srcStride)]
		d := dst[y*dstStride : y*dstStride+dstStride]
		for x := range d {
			x0, x1 := min(2*x, len(r0)-1), min(2*x+1, len(r0)-1)
			d[x] = uint8((uint(r0[x0]) + uint(r0[x1]) + uint(r1[x0]) + uint(r1[x1]) + 2) / 4)
		}
	}
}
