package photo

import (
	"bytes"
	"math"
	"unicode/utf16"
)

// p3Colorants are Display P3's red, green and blue colorants as ICC profiles
// store them: XYZ adapted to the D50 PCS with Bradford. Apple's profile and
// the ones built from the primaries differ by < 0.002.
var p3Colorants = [3][3]float64{
	{0.5151, 0.2412, -0.0011},
	{0.2920, 0.6922, 0.0419},
	{0.1571, 0.0666, 0.7841},
}

// nclxDisplayP3 is colour_primaries 12 in ITU-T H.273 (SMPTE EG 432-1, P3 with
// the D65 white): what iPhones write in HEIC colr boxes.
const nclxDisplayP3 = 12

// isDisplayP3 recognises a Display P3 profile by its colorants, or failing
// that by its description. Only P3 is converted: other wide-gamut profiles are
// rare in phone photos and are treated as sRGB.
func isDisplayP3(icc []byte) bool {
	if len(icc) < 132 || string(icc[36:40]) != "acsp" {
		return false
	}
	n := int(be32(icc[128:]))
	found, near := 0, 0
	for i := range min(n, 64) {
		e := 132 + 12*i
		if e+12 > len(icc) {
			break
		}
		sig, off, size := string(icc[e:e+4]), int(be32(icc[e+4:])), int(be32(icc[e+8:]))
		if off < 0 || size < 0 || off+size > len(icc) || off+size < off {
			continue
		}
		tag := icc[off : off+size]
		switch sig {
		case "rXYZ", "gXYZ", "bXYZ":
			found++
			if xyzNear(tag, p3Colorants[bytes.IndexByte([]byte("rgb"), sig[0])]) {
				near++
			}
		case "desc":
			if bytes.Contains(bytes.ToLower([]byte(describe(tag))), []byte("display p3")) {
				return true
			}
		}
	}
	return found == 3 && near == 3
}

func xyzNear(tag []byte, want [3]float64) bool {
	if len(tag) < 20 || string(tag[:4]) != "XYZ " {
		return false
	}
	for i := range 3 {
		v := float64(int32(be32(tag[8+4*i:]))) / 65536 // s15Fixed16
		if math.Abs(v-want[i]) > 0.005 {
			return false
		}
	}
	return true
}

// describe decodes a desc tag: textDescriptionType (ICC v2, ASCII) or
// multiLocalizedUnicodeType (v4, UTF-16BE; the first record is enough).
func describe(tag []byte) string {
	c := cursor{b: tag}
	typ := c.n(4)
	c.n(4)
	switch typ {
	case 0x64657363: // "desc"
		n := int(c.n(4))
		if c.ok() && n <= len(c.b) {
			return string(bytes.TrimRight(c.b[:n], "\x00"))
		}
	case 0x6d6c7563: // "mluc"
		if c.n(4) == 0 {
			return ""
		}
		c.n(4) // record size
		c.n(4) // language and country
		n, off := int(c.n(4)), int(c.n(4))
		if !c.ok() || off+n > len(tag) || off+n < off {
			return ""
		}
		u := make([]uint16, n/2)
		for i := range u {
			u[i] = be16(tag[off+2*i:])
		}
		return string(utf16.Decode(u))
	}
	return ""
}
