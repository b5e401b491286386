package photo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
)

// meta is what the pipeline needs besides pixels. Reading it is best effort:
// broken metadata means "as stored, sRGB", never a rejected photo.
type meta struct {
	orientation int // 0 when absent
	icc         []byte
	progressive bool // JPEG: the decoder keeps every coefficient, 4 bytes each
	// JPEG: scans counts the SOS markers up to EOI; samples is the sample
	// count per pixel over all components (1.5 for YCbCr 4:2:0, 3 for
	// 4:4:4); converted: the decoder makes a second, RGBA or CMYK, image.
	scans     int
	samples   float64
	converted bool
	// PNG: bytes per pixel of the image the decoder returns, doubled for
	// interlaced files (each pass is decoded apart, then copied).
	pngBytes int
	// WebP: the frame's own size (0 when absent) and whether it is lossless.
	frameW, frameH int
	lossless       bool
	exif           []byte // the EXIF TIFF block, for ReadCapture
}

// Bounds on what a header scan may read or keep, whatever the file claims.
const (
	maxHeaderScan = 8 << 20 // bytes of PNG chunks walked before pixel data
	maxICC        = 1 << 20 // an ICC profile larger than this is ignored
)

func readMeta(r io.ReadSeeker, f Format) meta {
	switch f {
	case JPEG:
		// The whole file: the frame header may follow megabytes of APPn,
		// and every scan counts. Only the Exif and ICC segments are kept.
		return jpegMeta(bufio.NewReaderSize(r, 64<<10))
	case PNG:
		return pngMeta(bufio.NewReader(&io.LimitedReader{R: r, N: maxHeaderScan}))
	case WebP:
		return webpMeta(r) // seeks over the image data, which precedes EXIF
	}
	return meta{}
}

// jpegMeta walks the file as image/jpeg does: junk between segments is
// skipped, not an end, so that what it finds is what the decoder will
// meet. It picks up the Exif APP1, the ICC profile (which APP2 splits into
// numbered chunks) and the first frame header (the one image/jpeg uses),
// and counts the scans, skipping each one's entropy-coded data.
func jpegMeta(br *bufio.Reader) meta {
	m := meta{samples: 3}
	var icc [][]byte
	if b, err := br.Peek(2); err != nil || b[0] != 0xFF || b[1] != 0xD8 {
		return m
	}
	br.Discard(2)
	sawSOF, adobe := false, false
	for {
		marker, err := nextMarker(br)
		if err != nil || marker == 0xD9 { // EOI
			break
		}
		if marker == 0x01 || marker >= 0xD0 && marker <= 0xD7 { // no length
			continue
		}
		var l [2]byte
		if _, err := io.ReadFull(br, l[:]); err != nil || be16(l[:]) < 2 {
			break
		}
		n := int(be16(l[:])) - 2
		isSOF := marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
		keep := marker == 0xE1 || marker == 0xE2 || marker == 0xEE || isSOF && !sawSOF
		if !keep {
			if _, err := br.Discard(n); err != nil {
				break
			}
			if marker == 0xDA {
				m.scans++ // its entropy-coded data is skipped by nextMarker
			}
			continue
		}
		seg := make([]byte, n)
		if _, err := io.ReadFull(br, seg); err != nil {
			break
		}
		switch {
		case isSOF:
			sawSOF = true
			m.progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE
			m.samples, m.converted = sofSamples(seg)
		case marker == 0xEE:
			adobe = adobe || bytes.HasPrefix(seg, []byte("Adobe"))
		case marker == 0xE1 && m.orientation == 0 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")):
			m.orientation, m.exif = exifOrientation(seg), seg
		case marker == 0xE2 && bytes.HasPrefix(seg, []byte("ICC_PROFILE\x00")) && len(seg) > 14:
			icc = addICCChunk(icc, seg[12], seg[13], seg[14:])
		}
	}
	m.converted = m.converted || adobe && m.samples > 1
	m.icc = joinICC(icc)
	return m
}

// sofSamples reads a frame header's components: samples per pixel, and
// whether image/jpeg converts the result into a second image (4 components,
// or 3 whose ids spell RGB).
func sofSamples(sof []byte) (samples float64, converted bool) {
	if len(sof) < 6 {
		return 3, false
	}
	n := int(sof[5])
	if n == 1 || len(sof) < 6+3*n {
		return 1, false // image/jpeg ignores a grey image's sampling factors
	}
	hmax, vmax, sum := 1, 1, 0
	for i := range n {
		hv := sof[6+3*i+1]
		h, v := int(hv>>4), int(hv&15)
		hmax, vmax, sum = max(hmax, h), max(vmax, v), sum+h*v
	}
	rgb := n == 3 && sof[6] == 'R' && sof[9] == 'G' && sof[12] == 'B'
	return max(1, float64(sum)/float64(hmax*vmax)), n == 4 || rgb
}

// nextMarker skips to the next marker, as image/jpeg does: bytes that are
// not a marker (junk between segments, a scan's entropy-coded data with
// its stuffed "FF 00" pairs) are passed over, and so are fill bytes.
func nextMarker(br *bufio.Reader) (byte, error) {
	for {
		if _, err := br.ReadSlice(0xFF); err != nil {
			if err == bufio.ErrBufferFull {
				continue
			}
			return 0, err
		}
		b, err := br.ReadByte()
		for err == nil && b == 0xFF {
			b, err = br.ReadByte()
		}
		if err != nil {
			return 0, err
		}
		if b != 0 {
			return b, nil
		}
	}
}

func addICCChunk(chunks [][]byte, seq, count byte, data []byte) [][]byte {
	if count == 0 || seq == 0 || seq > count {
		return chunks
	}
	if chunks == nil {
		chunks = make([][]byte, count)
	}
	if int(count) == len(chunks) {
		chunks[seq-1] = data
	}
	return chunks
}

func joinICC(chunks [][]byte) []byte {
	var out []byte
	for _, c := range chunks {
		if c == nil || len(out)+len(c) > maxICC {
			return nil
		}
		out = append(out, c...)
	}
	return out
}

// pngMeta reads iCCP and eXIf from the chunks before the first IDAT.
func pngMeta(br *bufio.Reader) meta {
	var m meta
	if _, err := br.Discard(8); err != nil {
		return m
	}
	for {
		var h [8]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return m
		}
		n, typ := int64(be32(h[:4])), string(h[4:])
		if typ == "IDAT" || typ == "IEND" || n > maxHeaderScan {
			return m
		}
		if typ == "IHDR" && n == 13 {
			var ihdr [17]byte
			if _, err := io.ReadFull(br, ihdr[:]); err != nil {
				return m
			}
			m.pngBytes = pngBytesPerPixel(ihdr[9], ihdr[8], ihdr[12] != 0)
			continue
		}
		if (typ != "iCCP" && typ != "eXIf") || n > maxICC {
			if _, err := br.Discard(int(n) + 4); err != nil {
				return m
			}
			continue
		}
		data := make([]byte, n+4) // with the CRC
		if _, err := io.ReadFull(br, data); err != nil {
			return m
		}
		data = data[:n]
		if typ == "eXIf" {
			m.orientation, m.exif = exifOrientation(data), data
		} else {
			m.icc = inflateICC(data)
		}
	}
}

// pngBytesPerPixel is the size of a pixel of the image image/png returns
// for a colour type and bit depth: Gray/Paletted 1, Gray16 2, RGBA and
// NRGBA 4, their 16-bit forms 8. Interlaced files decode each pass into an
// image of its own before copying it into the whole one.
func pngBytesPerPixel(colorType, depth byte, interlaced bool) int {
	n := 4
	switch {
	case colorType == 0 || colorType == 3:
		n = 1
	}
	if depth == 16 {
		n *= 2
	}
	if interlaced {
		n *= 2
	}
	return n
}

// inflateICC unpacks iCCP: a name, a NUL, a method byte, then zlib data.
func inflateICC(data []byte) []byte {
	i := bytes.IndexByte(data, 0)
	if i < 0 || i+2 > len(data) || data[i+1] != 0 {
		return nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(data[i+2:]))
	if err != nil {
		return nil
	}
	icc, err := io.ReadAll(io.LimitReader(zr, maxICC+1))
	if err != nil || len(icc) > maxICC {
		return nil
	}
	return icc
}

// webpMeta reads the ICCP and EXIF chunks of an extended (VP8X) WebP.
func webpMeta(r io.ReadSeeker) meta {
	var m meta
	if _, err := r.Seek(12, io.SeekCurrent); err != nil {
		return m
	}
	for range 64 { // VP8X files have a handful of chunks; animations are not photos
		var h [8]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return m
		}
		n := int64(binary.LittleEndian.Uint32(h[4:]))
		n += n & 1 // chunks are padded to even sizes
		typ := string(h[:4])
		if typ == "VP8 " || typ == "VP8L" {
			var fh [10]byte
			if n < int64(len(fh)) {
				return m
			}
			if _, err := io.ReadFull(r, fh[:]); err != nil {
				return m
			}
			m.frameW, m.frameH, m.lossless = webpFrameSize(typ, fh)
			n -= int64(len(fh))
		}
		if (typ != "ICCP" && typ != "EXIF") || n > maxICC {
			if _, err := r.Seek(n, io.SeekCurrent); err != nil {
				return m
			}
			continue
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(r, data); err != nil {
			return m
		}
		if typ == "EXIF" {
			m.orientation, m.exif = exifOrientation(data), data
		} else {
			m.icc = data
		}
	}
	return m
}

// webpFrameSize reads the size a VP8 or VP8L bitstream codes, which the
// decoder allocates whatever the VP8X canvas says.
func webpFrameSize(typ string, fh [10]byte) (w, h int, lossless bool) {
	if typ == "VP8L" {
		if fh[0] != 0x2f {
			return 0, 0, true
		}
		bits := binary.LittleEndian.Uint32(fh[1:5])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	}
	if fh[3] != 0x9d || fh[4] != 0x01 || fh[5] != 0x2a {
		return 0, 0, false
	}
	return int(binary.LittleEndian.Uint16(fh[6:]) & 0x3fff), int(binary.LittleEndian.Uint16(fh[8:]) & 0x3fff), false
}
