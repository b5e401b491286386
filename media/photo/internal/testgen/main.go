// Command testgen makes the test files that Debian's tools cannot:
//
//	testgen icc-p3 OUT                  a Display P3 ICC v4 profile
//	testgen icc-srgb OUT                an sRGB one (not P3: must be left alone)
//	testgen heif-prop IN OUT irot|imir|nclx N  add a property to the primary item
//	testgen png-bomb OUT W H            a tiny PNG whose header declares W×H pixels
//	testgen zip OUT                     a small ZIP archive
//
// scripts/gen-testdata.sh runs it; every output is byte-for-byte reproducible.
package main

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"strconv"
	"time"

	"github.com/guidepost/guidepost/media/photo/internal/iccprofile"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "testgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: see the package comment")
	}
	var out []byte
	var err error
	switch args[0] {
	case "icc-p3":
		out = iccprofile.DisplayP3()
	case "icc-srgb":
		out = iccprofile.RGB("sRGB (built by testgen)", iccprofile.SRGB, iccprofile.D65)
	case "heif-prop":
		if len(args) != 5 {
			return fmt.Errorf("heif-prop IN OUT irot|imir|nclx N")
		}
		var in []byte
		if in, err = os.ReadFile(args[1]); err != nil {
			return err
		}
		n, _ := strconv.Atoi(args[4])
		out, err = addProperty(in, args[3], byte(n))
		args = args[1:]
	case "png-bomb":
		if len(args) != 4 {
			return fmt.Errorf("png-bomb OUT W H")
		}
		w, _ := strconv.Atoi(args[2])
		h, _ := strconv.Atoi(args[3])
		out = pngBomb(uint32(w), uint32(h))
	case "zip":
		out, err = smallZip()
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], out, 0o644)
}

// pngBomb writes an RGB PNG header declaring w×h and a few rows of real data:
// decoding it would need w·h·4 bytes, the header check must refuse it first.
func pngBomb(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB, no interlace
	chunk(&b, "IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zw.Write(make([]byte, 4*(1+3*int(min(w, 1<<16))))) // four zero rows
	zw.Close()
	chunk(&b, "IDAT", z.Bytes())
	chunk(&b, "IEND", nil)
	return b.Bytes()
}

func chunk(b *bytes.Buffer, typ string, data []byte) {
	binary.Write(b, binary.BigEndian, uint32(len(data)))
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	b.WriteString(typ)
	b.Write(data)
	binary.Write(b, binary.BigEndian, crc.Sum32())
}

func smallZip() ([]byte, error) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	f, err := zw.CreateHeader(&zip.FileHeader{
		Name: "photo.jpg", Method: zip.Deflate,
		Modified: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		return nil, err
	}
	f.Write(bytes.Repeat([]byte("not a photo\n"), 20))
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
