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
}

// Bounds on what a header scan may read or keep, whatever the file claims.
const (
	maxHeaderScan = 8 << 20 // bytes of segments/chunks walked before pixel data
	maxICC        = 1 << 20 // an ICC profile larger than this is ignored
)

func readMeta(r io.ReadSeeker, f Format) meta {
	lr := &io.LimitedReader{R: r, N: maxHeaderScan}
	switch f {
	case JPEG:
		return jpegMeta(bufio.NewReader(lr))
	case PNG:
		return pngMeta(bufio.NewReader(lr))
	case WebP:
		return webpMeta(r) // seeks over the image data, which precedes EXIF
	}
	return meta{}
}

// jpegMeta walks the marker segments up to the first scan, picking up the
// Exif APP1 and the ICC profile, which APP2 splits into numbered chunks.
func jpegMeta(br *bufio.Reader) meta {
	var m meta
	var icc [][]byte
	if b, err := br.Peek(2); err != nil || b[0] != 0xFF || b[1] != 0xD8 {
		return m
	}
	br.Discard(2)
	for {
		marker, err := nextMarker(br)
		if err != nil || marker == 0xDA || marker == 0xD9 { // SOS, EOI
			break
		}
		if marker == 0x01 || marker >= 0xD0 && marker <= 0xD7 { // no length
			continue
		}
		m.progressive = m.progressive || marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE
		var l [2]byte
		if _, err := io.ReadFull(br, l[:]); err != nil || be16(l[:]) < 2 {
			break
		}
		n := int(be16(l[:])) - 2
		if marker != 0xE1 && marker != 0xE2 {
			if _, err := br.Discard(n); err != nil {
				break
			}
			continue
		}
		seg := make([]byte, n)
		if _, err := io.ReadFull(br, seg); err != nil {
			break
		}
		switch {
		case marker == 0xE1 && m.orientation == 0 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")):
			m.orientation = exifOrientation(seg)
		case marker == 0xE2 && bytes.HasPrefix(seg, []byte("ICC_PROFILE\x00")) && len(seg) > 14:
			icc = addICCChunk(icc, seg[12], seg[13], seg[14:])
		}
	}
	m.icc = joinICC(icc)
	return m
}

func nextMarker(br *bufio.Reader) (byte, error) {
	b, err := br.ReadByte()
	if err != nil || b != 0xFF {
		return 0, io.ErrUnexpectedEOF
	}
	for b == 0xFF { // fill bytes
		if b, err = br.ReadByte(); err != nil {
			return 0, err
		}
	}
	return b, nil
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
			m.orientation = exifOrientation(data)
		} else {
			m.icc = inflateICC(data)
		}
	}
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
			m.orientation = exifOrientation(data)
		} else {
			m.icc = data
		}
	}
	return m
}
