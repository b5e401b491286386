package photo

import (
	"encoding/binary"
	"fmt"
	"io"
)

// heifMeta is what Probe needs from an HEIF container, read from its boxes
// without touching the coded image: iPhone files keep all of it in a meta box
// of a few kilobytes at the front.
type heifMeta struct {
	width, height int  // ispe of the primary item: the coded size, before irot/imir
	orientation   int  // irot/imir as an EXIF orientation (1 when absent)
	transformed   bool // irot or imir present: the decoder applies them
	nclxPrimaries int  // colr nclx colour_primaries, 0 when absent
	icc           []byte
	exif          []byte // the Exif item, TIFF header first
}

// maxMetaBox bounds what is read into memory; real meta boxes are < 100 KB.
const maxMetaBox = 4 << 20

type box struct {
	typ  string
	body []byte
}

// maxTopBoxes bounds the top-level boxes walked before meta. HEIF files
// have a handful (ftyp, meta, mdat, perhaps free or idat); without a bound,
// 25 MiB of empty 8-byte boxes is three million reads and seeks.
const maxTopBoxes = 64

// readHEIF finds the top-level meta box (it may follow mdat in files not
// written by phones: mdat is skipped by seeking, never read) and parses it.
func readHEIF(r io.ReadSeeker) (heifMeta, error) {
	var hdr [16]byte
	for range maxTopBoxes {
		if _, err := io.ReadFull(r, hdr[:8]); err != nil {
			return heifMeta{}, fmt.Errorf("%w: heif: no meta box", ErrCorrupt)
		}
		size, typ := int64(be32(hdr[:4])), string(hdr[4:8])
		hlen := int64(8)
		if size == 1 { // 64-bit size follows
			if _, err := io.ReadFull(r, hdr[8:16]); err != nil {
				return heifMeta{}, fmt.Errorf("%w: heif: truncated box", ErrCorrupt)
			}
			size, hlen = int64(binary.BigEndian.Uint64(hdr[8:16])), 16
		}
		if size < hlen {
			return heifMeta{}, fmt.Errorf("%w: heif: bad size of box %q", ErrCorrupt, typ)
		}
		if typ != "meta" {
			if _, err := r.Seek(size-hlen, io.SeekCurrent); err != nil {
				return heifMeta{}, fmt.Errorf("%w: heif: %v", ErrCorrupt, err)
			}
			continue
		}
		if size-hlen > maxMetaBox {
			return heifMeta{}, fmt.Errorf("%w: heif: meta box of %d bytes", ErrCorrupt, size)
		}
		body := make([]byte, size-hlen)
		if _, err := io.ReadFull(r, body); err != nil {
			return heifMeta{}, fmt.Errorf("%w: heif: truncated meta box", ErrCorrupt)
		}
		return parseMeta(r, body)
	}
	return heifMeta{}, fmt.Errorf("%w: heif: no meta box in the first %d boxes", ErrCorrupt, maxTopBoxes)
}

// parseMeta reads the primary item's properties out of a meta box body.
func parseMeta(r io.ReadSeeker, meta []byte) (heifMeta, error) {
	if len(meta) < 4 {
		return heifMeta{}, fmt.Errorf("%w: heif: short meta", ErrCorrupt)
	}
	kids := children(meta[4:]) // meta is a full box
	primary, ok := parsePitm(kids["pitm"])
	if !ok {
		return heifMeta{}, fmt.Errorf("%w: heif: no primary item", ErrCorrupt)
	}
	iprp := children(kids["iprp"])
	var props []box
	if ipco := iprp["ipco"]; ipco != nil {
		props = boxes(ipco)
	}
	m := heifMeta{orientation: 1}
	o := orientationMatrix(1)
	for _, idx := range associations(iprp["ipma"], primary) {
		if idx < 1 || idx > len(props) {
			continue
		}
		p := props[idx-1]
		switch b := p.body; p.typ {
		case "ispe":
			if len(b) >= 12 {
				m.width, m.height = int(be32(b[4:])), int(be32(b[8:]))
			}
		case "irot":
			if len(b) >= 1 {
				// irot turns anticlockwise; properties apply in association order
				o = orientationMatrix([4]int{1, 8, 3, 6}[b[0]&3]).mul(o)
				m.transformed = true
			}
		case "imir":
			if len(b) >= 1 {
				// As libheif applies it (testdata heic-imir*.heic): 0 swaps
				// top and bottom, 1 left and right. Readings of the 2017
				// text's "vertical axis" differ; the decoder is what counts.
				o = orientationMatrix([2]int{4, 2}[b[0]&1]).mul(o)
				m.transformed = true
			}
		case "colr":
			m.readColr(b)
		}
	}
	m.orientation = o.orientation()
	if m.width <= 0 || m.height <= 0 {
		return heifMeta{}, fmt.Errorf("%w: heif: primary item has no ispe", ErrCorrupt)
	}
	m.exif = readExifItem(r, kids["iinf"], kids["iloc"])
	return m, nil
}

func (m *heifMeta) readColr(b []byte) {
	if len(b) < 4 {
		return
	}
	switch string(b[:4]) {
	case "nclx":
		if len(b) >= 6 && m.nclxPrimaries == 0 {
			m.nclxPrimaries = int(be16(b[4:]))
		}
	case "prof", "rICC":
		if m.icc == nil {
			m.icc = b[4:]
		}
	}
}

// boxes splits a run of sibling boxes; a malformed one ends the run.
func boxes(b []byte) []box {
	var out []box
	for len(b) >= 8 {
		size := int(be32(b))
		if size < 8 || size > len(b) {
			break
		}
		out = append(out, box{typ: string(b[4:8]), body: b[8:size]})
		b = b[size:]
	}
	return out
}

func children(b []byte) map[string][]byte {
	m := map[string][]byte{}
	for _, c := range boxes(b) {
		if _, dup := m[c.typ]; !dup {
			m[c.typ] = c.body
		}
	}
	return m
}

func parsePitm(b []byte) (uint32, bool) {
	switch {
	case len(b) >= 6 && b[0] == 0:
		return uint32(be16(b[4:])), true
	case len(b) >= 8:
		return be32(b[4:]), true
	}
	return 0, false
}
