package photo

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"time"
)

// Capture is where and when a photo was taken, from its EXIF. It is private
// to the photo's owner: derivatives never carry it.
type Capture struct {
	// TakenAt is DateTimeOriginal; with no OffsetTimeOriginal the camera's
	// wall clock is read as UTC. Zero when absent.
	TakenAt time.Time
	HasGPS  bool
	Lat     float64 // WGS 84 degrees, north positive
	Lng     float64 // east positive
}

// ReadCapture reads the capture time and GPS position of a photo Sniff
// identified as f: the EXIF APP1 of a JPEG, the eXIf chunk of a PNG, the
// EXIF chunk of a WebP, the Exif item of a HEIC. Like the rest of the
// metadata it is best effort: anything missing or malformed is left zero.
func ReadCapture(data []byte, f Format) Capture {
	var tiff []byte
	if f == HEIC {
		h, err := readHEIF(bytes.NewReader(data))
		if err != nil {
			return Capture{}
		}
		tiff = h.exif
	} else {
		tiff = readMeta(bytes.NewReader(data), f).exif
	}
	return parseCapture(tiff)
}

// Capture is where and when the photo was taken, from the EXIF block Probe
// read with the header: known as soon as an upload is accepted, before any
// render, so a guide can be pinned on a photo still pending.
func (i Info) Capture() Capture { return parseCapture(i.m.exif) }

// EXIF tags read here: the sub-IFD pointers of IFD0, then their fields.
const (
	tagExifIFD       = 0x8769
	tagGPSIFD        = 0x8825
	tagDateTimeOrig  = 0x9003
	tagOffsetTimeOri = 0x9011
	tagGPSLatRef     = 0x0001
	tagGPSLat        = 0x0002
	tagGPSLngRef     = 0x0003
	tagGPSLng        = 0x0004
)

// tiffBlock reads the IFDs of an EXIF block; every offset is bounds-checked,
// because the block comes straight from the upload.
type tiffBlock struct {
	b  []byte
	bo binary.ByteOrder
}

// ifdEntry is one 12-byte field: tag, type, count, value or offset.
type ifdEntry struct {
	typ   uint16
	count uint32
	value []byte // the 4 bytes of the value field
}

func parseCapture(raw []byte) Capture {
	t, ok := newTIFFBlock(raw)
	if !ok {
		return Capture{}
	}
	ifd0 := t.ifd(int64(t.bo.Uint32(t.b[4:8])))
	var c Capture
	if e, ok := ifd0[tagExifIFD]; ok {
		exif := t.ifd(int64(t.bo.Uint32(e.value)))
		c.TakenAt = t.takenAt(exif[tagDateTimeOrig], exif[tagOffsetTimeOri])
	}
	if e, ok := ifd0[tagGPSIFD]; ok {
		gps := t.ifd(int64(t.bo.Uint32(e.value)))
		lat, okLat := t.degrees(gps[tagGPSLat], t.ascii(gps[tagGPSLatRef]), "S", 90)
		lng, okLng := t.degrees(gps[tagGPSLng], t.ascii(gps[tagGPSLngRef]), "W", 180)
		if okLat && okLng {
			c.HasGPS, c.Lat, c.Lng = true, lat, lng
		}
	}
	return c
}

func newTIFFBlock(raw []byte) (tiffBlock, bool) {
	b := bytes.TrimPrefix(raw, []byte("Exif\x00\x00"))
	if len(b) < 8 {
		return tiffBlock{}, false
	}
	switch string(b[:4]) {
	case "II*\x00":
		return tiffBlock{b, binary.LittleEndian}, true
	case "MM\x00*":
		return tiffBlock{b, binary.BigEndian}, true
	}
	return tiffBlock{}, false
}

// ifd returns the fields of the IFD at off by tag; at most 512 are read.
func (t tiffBlock) ifd(off int64) map[uint16]ifdEntry {
	out := map[uint16]ifdEntry{}
	if off < 8 || off+2 > int64(len(t.b)) {
		return out
	}
	n := min(int64(t.bo.Uint16(t.b[off:])), 512)
	for i := range n {
		e := off + 2 + 12*i
		if e+12 > int64(len(t.b)) {
			break
		}
		out[t.bo.Uint16(t.b[e:])] = ifdEntry{typ: t.bo.Uint16(t.b[e+2:]), count: t.bo.Uint32(t.b[e+4:]), value: t.b[e+8 : e+12]}
	}
	return out
}

// data returns a field's bytes: inline when they fit in 4, else at the
// offset the field holds.
func (t tiffBlock) data(e ifdEntry, size int) ([]byte, bool) {
	n := int64(size) * int64(e.count)
	if n <= 4 {
		return e.value[:n], true
	}
	off := int64(t.bo.Uint32(e.value))
	if n > 1<<16 || off+n > int64(len(t.b)) {
		return nil, false
	}
	return t.b[off : off+n], true
}

func (t tiffBlock) ascii(e ifdEntry) string {
	if e.typ != 2 {
		return ""
	}
	b, ok := t.data(e, 1)
	if !ok {
		return ""
	}
	return strings.TrimRight(string(b), "\x00 ")
}

// degrees reads three RATIONALs (degrees, minutes, seconds).
func (t tiffBlock) degrees(e ifdEntry, ref, negative string, limit float64) (float64, bool) {
	if e.typ != 5 || e.count != 3 {
		return 0, false
	}
	b, ok := t.data(e, 8)
	if !ok {
		return 0, false
	}
	var v float64
	for i, scale := range []float64{1, 60, 3600} {
		num, den := t.bo.Uint32(b[8*i:]), t.bo.Uint32(b[8*i+4:])
		if den == 0 {
			return 0, false
		}
		v += float64(num) / float64(den) / scale
	}
	if ref == negative {
		v = -v
	}
	if math.IsNaN(v) || math.Abs(v) > limit {
		return 0, false
	}
	return v, true
}

func (t tiffBlock) takenAt(when, offset ifdEntry) time.Time {
	s := t.ascii(when)
	if s == "" {
		return time.Time{}
	}
	loc := time.UTC
	if off, err := time.Parse("-07:00", t.ascii(offset)); err == nil {
		_, secs := off.Zone()
		loc = time.FixedZone("", secs)
	}
	at, err := time.ParseInLocation("2006:01:02 15:04:05", s, loc)
	if err != nil || at.Year() < 1900 {
		return time.Time{}
	}
	return at
}
