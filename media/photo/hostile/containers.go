package hostile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// HEIFFlood is an HEIC ftyp box followed by empty "free" boxes up to size
// bytes: a box walk without a bound on the number of boxes reads them all.
func HEIFFlood(size int) []byte {
	b := make([]byte, 0, size)
	b = append(b, 0, 0, 0, 24)
	b = append(b, "ftypheic\x00\x00\x00\x00mif1heic"...)
	for len(b)+8 <= size {
		b = append(b, 0, 0, 0, 8, 'f', 'r', 'e', 'e')
	}
	return b
}

// InflatePNG is a w×h 16-bit RGBA PNG of zeros: deflate shrinks it about a
// thousandfold, so a file of a few hundred KB decodes to w·h·8 bytes.
func InflatePNG(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 16, 6, 0, 0, 0)
	pngChunk(&b, "IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+8*w) // filter byte, then the samples
	for range h {
		zw.Write(row)
	}
	zw.Close()
	pngChunk(&b, "IDAT", z.Bytes())
	pngChunk(&b, "IEND", nil)
	return b.Bytes()
}

// HeaderBombPNG is an RGB PNG header declaring w×h with a few rows of real
// data: decoding it would need w·h·4 bytes; the header check must refuse it
// first.
func HeaderBombPNG(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB, no interlace
	pngChunk(&b, "IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write(make([]byte, 4*(1+3*int(min(w, 1<<16))))) // four zero rows
	zw.Close()
	pngChunk(&b, "IDAT", z.Bytes())
	pngChunk(&b, "IEND", nil)
	return b.Bytes()
}

func pngChunk(b *bytes.Buffer, typ string, data []byte) {
	binary.Write(b, binary.BigEndian, uint32(len(data)))
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	b.WriteString(typ)
	b.Write(data)
	binary.Write(b, binary.BigEndian, crc.Sum32())
}

// WebPCanvas wraps the frame of a simple (VP8 or VP8L) WebP in an extended
// file whose VP8X canvas claims w×h, whatever the frame's real size.
func WebPCanvas(simple []byte, w, h int) []byte {
	frame := simple[12:] // the frame chunk, after "RIFF" size "WEBP"
	vp8x := make([]byte, 10)
	vp8x[4], vp8x[5], vp8x[6] = byte(w-1), byte((w-1)>>8), byte((w-1)>>16)
	vp8x[7], vp8x[8], vp8x[9] = byte(h-1), byte((h-1)>>8), byte((h-1)>>16)
	var body bytes.Buffer
	body.WriteString("WEBPVP8X")
	binary.Write(&body, binary.LittleEndian, uint32(len(vp8x)))
	body.Write(vp8x)
	body.Write(frame)
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(body.Len()))
	b.Write(body.Bytes())
	return b.Bytes()
}
