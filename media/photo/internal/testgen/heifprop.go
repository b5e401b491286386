package main

import (
	"encoding/binary"
	"fmt"
)

// addProperty appends an irot, imir or colr nclx property to ipco, associates
// it with the primary item (after its other properties, so it applies last),
// and shifts the iloc offsets of the data after the meta box by the bytes
// added. heif-enc 1.15 writes none of them, even with --colour_primaries.
func addProperty(file []byte, kind string, v byte) ([]byte, error) {
	var prop []byte
	switch kind {
	case "irot", "imir":
		prop = sized(kind, []byte{v})
	case "nclx": // v = colour_primaries; sRGB transfer, BT.601 matrix, full range
		prop = sized("colr", []byte{'n', 'c', 'l', 'x', 0, v, 0, 13, 0, 6, 0x80})
	default:
		return nil, fmt.Errorf("property %q: want irot, imir or nclx", kind)
	}
	top, err := split(file)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, b := range top {
		if b.typ != "meta" {
			out = append(out, b.raw...)
			continue
		}
		meta, err := patchMeta(b, prop, b.end, kind != "nclx")
		if err != nil {
			return nil, err
		}
		out = append(out, meta...)
	}
	return out, nil
}

type rawBox struct {
	typ        string
	raw        []byte // the whole box
	start, end int    // position in the parent buffer's file (top level only)
}

func split(b []byte) ([]rawBox, error) {
	var out []rawBox
	for off := 0; off < len(b); {
		if len(b)-off < 8 {
			return nil, fmt.Errorf("trailing bytes at %d", off)
		}
		size := int(binary.BigEndian.Uint32(b[off:]))
		if size < 8 || off+size > len(b) {
			return nil, fmt.Errorf("box at %d: size %d (64-bit sizes not handled)", off, size)
		}
		out = append(out, rawBox{typ: string(b[off+4 : off+8]), raw: b[off : off+size], start: off, end: off + size})
		off += size
	}
	return out, nil
}

func sized(typ string, body []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	return append(append(out, typ...), body...)
}

func patchMeta(meta rawBox, prop []byte, metaEnd int, essential bool) ([]byte, error) {
	full := meta.raw[8:12]
	kids, err := split(meta.raw[12:])
	if err != nil {
		return nil, err
	}
	primary := -1
	for _, k := range kids {
		if k.typ == "pitm" && len(k.raw) >= 14 {
			primary = int(binary.BigEndian.Uint16(k.raw[12:]))
		}
	}
	if primary < 0 {
		return nil, fmt.Errorf("no pitm")
	}
	added := len(prop) + 1 // the property, one association byte
	body := append([]byte{}, full...)
	for _, k := range kids {
		switch k.typ {
		case "iprp":
			iprp, err := patchIprp(k.raw, prop, primary, essential)
			if err != nil {
				return nil, err
			}
			body = append(body, iprp...)
		case "iloc":
			body = append(body, shiftIloc(k.raw, metaEnd, added)...)
		default:
			body = append(body, k.raw...)
		}
	}
	return sized("meta", body), nil
}

func patchIprp(iprp, prop []byte, primary int, essential bool) ([]byte, error) {
	kids, err := split(iprp[8:])
	if err != nil {
		return nil, err
	}
	var body []byte
	index := 0
	for _, k := range kids {
		if k.typ == "ipco" {
			props, err := split(k.raw[8:])
			if err != nil {
				return nil, err
			}
			index = len(props) + 1
			body = append(body, sized("ipco", append(append([]byte{}, k.raw[8:]...), prop...))...)
		}
	}
	for _, k := range kids {
		switch k.typ {
		case "ipco":
		case "ipma":
			ipma, err := patchIpma(k.raw[8:], primary, index, essential)
			if err != nil {
				return nil, err
			}
			body = append(body, sized("ipma", ipma)...)
		default:
			body = append(body, k.raw...)
		}
	}
	return sized("iprp", body), nil
}

// patchIpma handles the version 0, 8-bit-index layout that heif-enc writes.
func patchIpma(b []byte, primary, index int, essential bool) ([]byte, error) {
	if b[0] != 0 || b[3]&1 != 0 || index > 127 {
		return nil, fmt.Errorf("ipma layout not handled")
	}
	out := append([]byte{}, b[:8]...)
	n := int(binary.BigEndian.Uint32(b[4:]))
	p := 8
	for range n {
		id, count := int(binary.BigEndian.Uint16(b[p:])), int(b[p+2])
		entry := b[p : p+3+count]
		p += 3 + count
		if id != primary {
			out = append(out, entry...)
			continue
		}
		out = append(out, entry[0], entry[1], byte(count+1))
		out = append(out, entry[3:]...)
		if essential { // transformations: readers must apply them
			index |= 0x80
		}
		out = append(out, byte(index))
	}
	return out, nil
}

// shiftIloc adds delta to every item location at or past metaEnd (iloc
// version 0/1, construction method 0: what heif-enc writes). The base offset
// moves when there is one, otherwise each extent offset does.
func shiftIloc(b []byte, metaEnd, delta int) []byte {
	out := append([]byte{}, b...)
	version := out[8]
	offSize, lenSize := int(out[12]>>4), int(out[12]&15)
	baseSize, idxSize := int(out[13]>>4), int(out[13]&15)
	if version > 1 {
		panic("iloc version 2 not handled")
	}
	count := int(binary.BigEndian.Uint16(out[14:]))
	p := 16
	for range count {
		p += 2 // item id
		if version == 1 {
			p += 2 // construction method
		}
		p += 2 // data reference index
		basePos := p
		base := getN(out[p:], baseSize)
		p += baseSize
		extents := int(binary.BigEndian.Uint16(out[p:]))
		p += 2
		for e := range extents {
			if version == 1 {
				p += idxSize
			}
			off := getN(out[p:], offSize)
			if base+off >= uint64(metaEnd) {
				if baseSize == 0 {
					putN(out[p:], offSize, off+uint64(delta))
				} else if e == 0 {
					putN(out[basePos:], baseSize, base+uint64(delta))
				}
			}
			p += offSize + lenSize
		}
	}
	return out
}

func getN(b []byte, n int) uint64 {
	var v uint64
	for _, x := range b[:n] {
		v = v<<8 | uint64(x)
	}
	return v
}

func putN(b []byte, n int, v uint64) {
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}
