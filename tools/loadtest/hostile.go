package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"math/bits"
)

// Hostile files for the abuse scenario, made in process so the scenario
// needs nothing on disk.

// scanBombJPEG is a valid progressive grayscale JPEG of w×h flat pixels
// whose AC scan is repeated scans times. Each scan is a few bytes (runs of
// empty blocks), yet a decoder walks every block of the picture for each:
// a small file that costs seconds of CPU. Real encoders write about ten
// scans.
func scanBombJPEG(w, h, scans int) []byte {
	var b bytes.Buffer
	seg := func(marker byte, payload ...byte) {
		b.Write([]byte{0xFF, marker})
		binary.Write(&b, binary.BigEndian, uint16(len(payload)+2))
		b.Write(payload)
	}
	b.Write([]byte{0xFF, 0xD8})
	seg(0xDB, append([]byte{0x00}, bytes.Repeat([]byte{1}, 64)...)...)       // one flat quantisation table
	seg(0xC2, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 1, 1, 0x11, 0)    // SOF2: progressive, 1 component
	seg(0xC4, append([]byte{0x00, 1}, append(make([]byte, 15), 0x00)...)...) // DC table 0: one code, '0' → category 0
	// AC table 0: fifteen 4-bit codes, code R → an EOB run of 2^R plus R bits.
	acTable := []byte{0x10, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for r := range 15 {
		acTable = append(acTable, byte(r<<4))
	}
	seg(0xC4, acTable...)
	blocks := ((w + 7) / 8) * ((h + 7) / 8)
	seg(0xDA, 1, 1, 0x00, 0, 0, 0x00) // DC scan: every block's difference is 0
	var dc bitWriter
	for range blocks {
		dc.put(0, 1)
	}
	b.Write(dc.bytes())
	var ac bitWriter // AC scan: every block empty, in runs of at most 32767
	for left := blocks; left > 0; {
		run := min(left, 1<<15-1)
		r := uint(bits.Len(uint(run)) - 1)
		ac.put(uint32(r), 4)
		ac.put(uint32(run-1<<r), r)
		left -= run
	}
	acData := ac.bytes()
	for range scans {
		seg(0xDA, 1, 1, 0x00, 1, 63, 0x00)
		b.Write(acData)
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// bitWriter packs entropy-coded bits MSB first, stuffing a 0 after 0xFF
// and padding the last byte with ones, as JPEG wants.
type bitWriter struct {
	out   []byte
	acc   uint32
	nbits uint
}

func (bw *bitWriter) put(v uint32, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		bw.acc = bw.acc<<1 | (v>>uint(i))&1
		bw.nbits++
		if bw.nbits == 8 {
			bw.emit(byte(bw.acc))
			bw.acc, bw.nbits = 0, 0
		}
	}
}

func (bw *bitWriter) emit(c byte) {
	bw.out = append(bw.out, c)
	if c == 0xFF {
		bw.out = append(bw.out, 0)
	}
}

func (bw *bitWriter) bytes() []byte {
	if bw.nbits > 0 {
		pad := 8 - bw.nbits
		bw.emit(byte(bw.acc<<pad | (1<<pad - 1)))
		bw.acc, bw.nbits = 0, 0
	}
	return bw.out
}

// inflateBombPNG is a w×h all-black grayscale PNG: tens of kilobytes that
// inflate to w×h bytes and decode to a picture of that size.
func inflateBombPNG(w, h int) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		panic(err) // writing to memory cannot fail
	}
	return b.Bytes()
}

// withNonce returns data with a comment holding nonce inserted after the
// signature (a JPEG COM segment after SOI, a PNG tEXt chunk after IHDR), so
// every upload is distinct bytes and the server's de-duplication does not
// answer it for free.
func withNonce(data []byte, nonce string) []byte {
	if bytes.HasPrefix(data, []byte{0xFF, 0xD8}) {
		com := append([]byte{0xFF, 0xFE, byte((len(nonce) + 2) >> 8), byte(len(nonce) + 2)}, nonce...)
		return append(append(append([]byte{}, data[:2]...), com...), data[2:]...)
	}
	const afterIHDR = 8 + 8 + 13 + 4
	body := append([]byte("tEXt"), append([]byte("Comment\x00"), nonce...)...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(body)-4))
	chunk = append(chunk, body...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(body))
	return append(append(append([]byte{}, data[:afterIHDR]...), chunk...), data[afterIHDR:]...)
}
