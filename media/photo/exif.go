package photo

import (
	"bytes"
	"encoding/binary"
)

// exifOrientation returns the Orientation tag (0x0112) of IFD0 in a TIFF
// block, or 0 when it is absent or out of range. Only IFD0 is read: it is the
// one that describes the main image (IFD1 is the embedded thumbnail). Every
// offset is bounds-checked because the block comes straight from the upload.
func exifOrientation(tiff []byte) int {
	tiff = bytes.TrimPrefix(tiff, []byte("Exif\x00\x00")) // WebP writers disagree on it
	if len(tiff) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(tiff[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 0
	}
	ifd := int64(bo.Uint32(tiff[4:8]))
	if ifd < 8 || ifd+2 > int64(len(tiff)) {
		return 0
	}
	n := int64(bo.Uint16(tiff[ifd:]))
	for i := range n {
		e := ifd + 2 + 12*i
		if e+12 > int64(len(tiff)) {
			return 0
		}
		// type SHORT, count 1: the value sits in the first two bytes of the field
		if bo.Uint16(tiff[e:]) == 0x0112 && bo.Uint16(tiff[e+2:]) == 3 {
			if o := int(bo.Uint16(tiff[e+8:])); o >= 1 && o <= 8 {
				return o
			}
			return 0
		}
	}
	return 0
}
