package photo

import "io"

// cursor reads big-endian fields; after the first short read it only yields
// zeros and ok() turns false, so parsers check once instead of per field.
type cursor struct {
	b   []byte
	bad bool
}

func (c *cursor) n(size int) uint64 {
	if size < 0 || size > 8 || len(c.b) < size {
		c.bad, c.b = true, nil
		return 0
	}
	var v uint64
	for _, x := range c.b[:size] {
		v = v<<8 | uint64(x)
	}
	c.b = c.b[size:]
	return v
}

func (c *cursor) ok() bool { return !c.bad }

// associations lists the 1-based ipco indices associated with item, in order.
func associations(ipma []byte, item uint32) []int {
	c := cursor{b: ipma}
	version, flags := c.n(1), c.n(3)
	entries := c.n(4)
	for i := uint64(0); i < entries && c.ok(); i++ {
		id := c.n(2)
		if version >= 1 {
			id = c.n(4)
		}
		count := int(c.n(1))
		idx := make([]int, 0, count)
		for range count {
			if flags&1 != 0 {
				idx = append(idx, int(c.n(2)&0x7fff))
			} else {
				idx = append(idx, int(c.n(1)&0x7f))
			}
		}
		if uint32(id) == item && c.ok() {
			return idx
		}
	}
	return nil
}

// maxExifItem bounds the Exif read; the orientation sits in its first bytes.
const maxExifItem = 256 << 10

// readExifItem returns the TIFF block of the first Exif item, or nil. It is
// only consulted when the file has no irot/imir (see Info.Orientation).
func readExifItem(r io.ReadSeeker, iinf, iloc []byte) []byte {
	id, ok := exifItemID(iinf)
	if !ok {
		return nil
	}
	off, n, ok := itemExtent(iloc, id)
	if !ok || n < 8 || n > maxExifItem {
		return nil
	}
	if _, err := r.Seek(int64(off), io.SeekStart); err != nil {
		return nil
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil
	}
	skip := uint64(be32(data)) + 4 // exif_tiff_header_offset, then the block
	if skip >= uint64(len(data)) {
		return nil
	}
	return data[skip:]
}

func exifItemID(iinf []byte) (uint32, bool) {
	c := cursor{b: iinf}
	if c.n(1) == 0 {
		c.n(3)
		c.n(2) // entry_count, 16 bits in version 0
	} else {
		c.n(3)
		c.n(4)
	}
	for _, infe := range boxes(c.b) {
		ic := cursor{b: infe.body}
		v := ic.n(1)
		ic.n(3)
		if infe.typ != "infe" || v < 2 {
			continue
		}
		id := ic.n(2)
		if v >= 3 {
			id = ic.n(4)
		}
		ic.n(2) // protection index
		if typ := ic.n(4); ic.ok() && typ == 0x45786966 /* "Exif" */ {
			return uint32(id), true
		}
	}
	return 0, false
}

// itemExtent returns the file offset and length of item's first extent when it
// is stored in the file itself (construction method 0).
func itemExtent(iloc []byte, item uint32) (off, n uint64, ok bool) {
	c := cursor{b: iloc}
	version := c.n(1)
	c.n(3)
	sizes := c.n(2)
	offSize, lenSize := int(sizes>>12), int(sizes>>8&15)
	baseSize, idxSize := int(sizes>>4&15), int(sizes&15)
	count := c.n(2)
	if version == 2 {
		count = count<<16 | c.n(2) // 32 bits in version 2
	}
	for i := uint64(0); i < count && c.ok(); i++ {
		id := c.n(2)
		if version == 2 {
			id = c.n(4)
		}
		method := uint64(0)
		if version >= 1 {
			method = c.n(2) & 15
		}
		c.n(2) // data_reference_index
		base := c.n(baseSize)
		extents := c.n(2)
		for e := uint64(0); e < extents && c.ok(); e++ {
			if version >= 1 && idxSize > 0 {
				c.n(idxSize)
			}
			eo, el := c.n(offSize), c.n(lenSize)
			if e == 0 && uint32(id) == item && method == 0 && c.ok() {
				return base + eo, el, true
			}
		}
	}
	return 0, 0, false
}
