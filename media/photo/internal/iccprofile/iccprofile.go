// Package iccprofile builds small ICC v4 RGB display profiles (matrix + sRGB
// transfer curve). Debian ships no Display P3 profile, and the tests and
// test-data generator need one whose bytes are reproducible.
package iccprofile

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// Chromaticities (CIE xy).
type XY struct{ X, Y float64 }

var (
	D65 = XY{0.3127, 0.3290}
	// Display P3: DCI-P3 primaries with the D65 white (SMPTE EG 432-1).
	P3 = [3]XY{{0.680, 0.320}, {0.265, 0.690}, {0.150, 0.060}}
	// sRGB / BT.709.
	SRGB = [3]XY{{0.640, 0.330}, {0.300, 0.600}, {0.150, 0.060}}
)

// DisplayP3 is the profile an iPhone photo carries, as far as colour goes.
func DisplayP3() []byte { return RGB("Display P3", P3, D65) }

// RGBToXYZ returns the matrix taking linear RGB to XYZ for the given primaries
// and white, with Y(white) = 1.
func RGBToXYZ(prim [3]XY, white XY) [3][3]float64 {
	var m [3][3]float64
	for c, p := range prim {
		m[0][c], m[1][c], m[2][c] = p.X/p.Y, 1, (1-p.X-p.Y)/p.Y
	}
	s := Mul(Inv(m), xyz(white))
	for r := range 3 {
		for c := range 3 {
			m[r][c] *= s[c]
		}
	}
	return m
}

// RGB builds a v4 display profile: colorants adapted to the D50 PCS with
// Bradford, the sRGB curve on all three channels.
func RGB(desc string, prim [3]XY, white XY) []byte {
	chad := bradford(xyz(white), [3]float64{0.9642, 1, 0.8249})
	col := MatMul(chad, RGBToXYZ(prim, white))
	trc := para()
	tags := []struct {
		sig  string
		data []byte
	}{
		{"desc", mluc(desc)},
		{"cprt", mluc("No copyright, use freely")},
		{"wtpt", xyzTag([3]float64{0.9642, 1, 0.8249})},
		{"rXYZ", xyzTag([3]float64{col[0][0], col[1][0], col[2][0]})},
		{"gXYZ", xyzTag([3]float64{col[0][1], col[1][1], col[2][1]})},
		{"bXYZ", xyzTag([3]float64{col[0][2], col[1][2], col[2][2]})},
		{"rTRC", trc}, {"gTRC", trc}, {"bTRC", trc},
		{"chad", sf32Tag(chad)},
	}
	var body bytes.Buffer
	table := make([]byte, 4+12*len(tags))
	binary.BigEndian.PutUint32(table, uint32(len(tags)))
	base := 128 + len(table)
	for i, t := range tags {
		for body.Len()%4 != 0 {
			body.WriteByte(0)
		}
		e := table[4+12*i:]
		copy(e, t.sig)
		binary.BigEndian.PutUint32(e[4:], uint32(base+body.Len()))
		binary.BigEndian.PutUint32(e[8:], uint32(len(t.data)))
		body.Write(t.data)
	}
	hdr := make([]byte, 128)
	size := 128 + len(table) + body.Len()
	binary.BigEndian.PutUint32(hdr[0:], uint32(size))
	binary.BigEndian.PutUint32(hdr[8:], 0x04300000) // v4.3
	copy(hdr[12:], "mntrRGB XYZ ")
	for i, v := range []uint16{2024, 1, 1, 0, 0, 0} { // fixed date: reproducible bytes
		binary.BigEndian.PutUint16(hdr[24+2*i:], v)
	}
	copy(hdr[36:], "acsp")
	copy(hdr[68:], xyzTag([3]float64{0.9642, 1, 0.8249})[8:]) // PCS illuminant
	return append(append(hdr, table...), body.Bytes()...)
}

func xyz(w XY) [3]float64 { return [3]float64{w.X / w.Y, 1, (1 - w.X - w.Y) / w.Y} }

func bradford(src, dst [3]float64) [3][3]float64 {
	b := [3][3]float64{{0.8951, 0.2664, -0.1614}, {-0.7502, 1.7135, 0.0367}, {0.0389, -0.0685, 1.0296}}
	s, d := Mul(b, src), Mul(b, dst)
	var k [3][3]float64
	for i := range 3 {
		k[i][i] = d[i] / s[i]
	}
	return MatMul(Inv(b), MatMul(k, b))
}

func s15(v float64) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(int32(math.Round(v*65536))))
}

func xyzTag(v [3]float64) []byte {
	out := []byte("XYZ \x00\x00\x00\x00")
	for _, c := range v {
		out = append(out, s15(c)...)
	}
	return out
}

func sf32Tag(m [3][3]float64) []byte {
	out := []byte("sf32\x00\x00\x00\x00")
	for _, row := range m {
		for _, c := range row {
			out = append(out, s15(c)...)
		}
	}
	return out
}

// para is the sRGB curve as parametric function type 3.
func para() []byte {
	out := []byte("para\x00\x00\x00\x00\x00\x03\x00\x00")
	for _, v := range []float64{2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045} {
		out = append(out, s15(v)...)
	}
	return out
}

func mluc(s string) []byte {
	u := utf16.Encode([]rune(s))
	out := []byte("mluc\x00\x00\x00\x00")
	out = binary.BigEndian.AppendUint32(out, 1)  // one record
	out = binary.BigEndian.AppendUint32(out, 12) // record size
	out = append(out, "enUS"...)
	out = binary.BigEndian.AppendUint32(out, uint32(2*len(u)))
	out = binary.BigEndian.AppendUint32(out, 28) // string offset
	for _, c := range u {
		out = binary.BigEndian.AppendUint16(out, c)
	}
	return out
}

// Mul returns m·v.
func Mul(m [3][3]float64, v [3]float64) [3]float64 {
	var out [3]float64
	for r := range 3 {
		out[r] = m[r][0]*v[0] + m[r][1]*v[1] + m[r][2]*v[2]
	}
	return out
}

// MatMul returns a·b.
func MatMul(a, b [3][3]float64) [3][3]float64 {
	var out [3][3]float64
	for r := range 3 {
		for c := range 3 {
			out[r][c] = a[r][0]*b[0][c] + a[r][1]*b[1][c] + a[r][2]*b[2][c]
		}
	}
	return out
}

// Inv inverts a 3×3 matrix by cofactors.
func Inv(m [3][3]float64) [3][3]float64 {
	var c [3][3]float64
	for r := range 3 {
		for k := range 3 {
			r1, r2, k1, k2 := (r+1)%3, (r+2)%3, (k+1)%3, (k+2)%3
			c[k][r] = m[r1][k1]*m[r2][k2] - m[r1][k2]*m[r2][k1]
		}
	}
	det := m[0][0]*c[0][0] + m[0][1]*c[1][0] + m[0][2]*c[2][0]
	for r := range 3 {
		for k := range 3 {
			c[r][k] /= det
		}
	}
	return c
}
