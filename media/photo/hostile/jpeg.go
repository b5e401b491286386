// Package hostile makes crafted photos for tests: files that real cameras
// and encoders never write but an attacker can, each aimed at one way of
// making a decoder run long, allocate more than its header promised, or a
// parser loop. Every output is a pure function of its arguments, so the
// corpus under testdata/hostile is reproducible (scripts/gen-testdata.sh).
package hostile

import (
	"bytes"
	"encoding/binary"
)

// ProgressiveJPEG is a flat mid-grey w×h progressive JPEG, YCbCr 4:4:4: one
// interleaved DC scan, then one AC scan (coefficients 1–63) per component,
// then the last AC scan again extraScans times. Every AC scan codes all its
// blocks as end-of-band runs, so it costs about 25 bytes in the file while
// a decoder still visits every block of the component: the "scan bomb".
func ProgressiveJPEG(w, h, extraScans int) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	segment(&b, 0xE0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))
	dqt := make([]byte, 65) // table 0, 8-bit, every step 1
	for i := 1; i < 65; i++ {
		dqt[i] = 1
	}
	segment(&b, 0xDB, dqt)
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3}
	for id := byte(1); id <= 3; id++ {
		sof = append(sof, id, 0x11, 0)
	}
	segment(&b, 0xC2, sof)
	// DC table 0: one symbol (category 0: no difference), code "0".
	segment(&b, 0xC4, append([]byte{0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0))
	// AC table 0: the 15 end-of-band-run symbols r<<4, 4-bit codes.
	ac := []byte{0x10, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for r := range 15 {
		ac = append(ac, byte(r<<4))
	}
	segment(&b, 0xC4, ac)
	blocks := ((w + 7) / 8) * ((h + 7) / 8)

	segment(&b, 0xDA, []byte{3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0})
	var dc bitWriter
	for range 3 * blocks {
		dc.put(0, 1)
	}
	b.Write(dc.bytes())
	acScan := func(comp byte) {
		segment(&b, 0xDA, []byte{1, comp, 0x00, 1, 63, 0})
		var bw bitWriter
		for left := blocks; left > 0; {
			run := min(left, 1<<15-1)
			r := 0
			for 1<<(r+1) <= run {
				r++
			}
			bw.put(uint32(r), 4) // the code of symbol r<<4 is r
			bw.put(uint32(run-1<<r), r)
			left -= run
		}
		b.Write(bw.bytes())
	}
	for comp := byte(1); comp <= 3; comp++ {
		acScan(comp)
	}
	for range extraScans {
		acScan(3)
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

func segment(b *bytes.Buffer, marker byte, data []byte) {
	b.Write([]byte{0xFF, marker})
	binary.Write(b, binary.BigEndian, uint16(len(data)+2))
	b.Write(data)
}

// bitWriter packs entropy-coded bits, stuffing a zero after every 0xFF.
type bitWriter struct {
	out  []byte
	acc  uint32
	nacc int
}

func (w *bitWriter) put(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		w.acc = w.acc<<1 | v>>i&1
		w.nacc++
		if w.nacc == 8 {
			w.flush()
		}
	}
}

func (w *bitWriter) flush() {
	w.out = append(w.out, byte(w.acc))
	if byte(w.acc) == 0xFF {
		w.out = append(w.out, 0)
	}
	w.acc, w.nacc = 0, 0
}

// bytes pads the last byte with ones, as the standard asks.
func (w *bitWriter) bytes() []byte {
	for w.nacc != 0 {
		w.put(1, 1)
	}
	return w.out
}

// InsertBeforeSOF puts extra bytes right before the frame header (the first
// SOFn marker): junk between markers, or APPn segments.
func InsertBeforeSOF(jpg, extra []byte) []byte {
	for i := 2; i+4 <= len(jpg); {
		if jpg[i] != 0xFF {
			break
		}
		if m := jpg[i+1]; m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
			return append(append(append([]byte(nil), jpg[:i]...), extra...), jpg[i:]...)
		}
		i += 2 + int(binary.BigEndian.Uint16(jpg[i+2:]))
	}
	panic("hostile: no SOF marker")
}

// APPSegments is n bytes or more of APP15 segments (64 KB each), as a
// writer of maker notes or previews might leave before the frame header.
func APPSegments(n int) []byte {
	var b bytes.Buffer
	chunk := make([]byte, 65533)
	for b.Len() < n {
		segment(&b, 0xEF, chunk)
	}
	return b.Bytes()
}

// WithExif puts an APP1 Exif segment holding tiff right after SOI.
func WithExif(jpg, tiff []byte) []byte {
	var b bytes.Buffer
	b.Write(jpg[:2])
	segment(&b, 0xE1, append([]byte("Exif\x00\x00"), tiff...))
	b.Write(jpg[2:])
	return b.Bytes()
}

// ExifLoop is a big-endian TIFF block whose IFD0 points back at itself,
// both as the next IFD and as its Exif and GPS sub-IFDs, and whose IFD1
// offset is its own: a reader that follows links without a visited set
// never ends. Its only real entry is Orientation 6.
func ExifLoop() []byte {
	bo := binary.BigEndian
	b := []byte("MM\x00*")
	b = bo.AppendUint32(b, 8)
	b = bo.AppendUint16(b, 3)
	entry := func(tag, typ uint16, count, value uint32) {
		b = bo.AppendUint16(b, tag)
		b = bo.AppendUint16(b, typ)
		b = bo.AppendUint32(b, count)
		b = bo.AppendUint32(b, value)
	}
	entry(0x0112, 3, 1, 6<<16)   // Orientation, SHORT, in the first two bytes
	entry(0x8769, 4, 1, 8)       // ExifIFD → IFD0
	entry(0x8825, 4, 1, 8)       // GPS IFD → IFD0
	return bo.AppendUint32(b, 8) // next IFD → IFD0
}
