// Command testgen makes the test files that Debian's tools cannot:
//
//	testgen icc-p3 OUT                  a Display P3 ICC v4 profile
//	testgen icc-srgb OUT                an sRGB one (not P3: must be left alone)
//	testgen heif-prop IN OUT irot|imir|nclx N  add a property to the primary item
//	testgen png-bomb OUT W H            a tiny PNG whose header declares W×H pixels
//	testgen zip OUT                     a small ZIP archive
//	testgen hostile DIR WEBP            the crafted files of testdata/hostile
//	                                    (WEBP: a simple WebP to wrap)
//
// scripts/gen-testdata.sh runs it; every output is byte-for-byte reproducible.
package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/guidepost/guidepost/media/photo/hostile"
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
		out = hostile.HeaderBombPNG(uint32(w), uint32(h))
	case "zip":
		out, err = smallZip()
	case "hostile":
		if len(args) != 3 {
			return fmt.Errorf("hostile DIR WEBP")
		}
		return writeHostile(args[1], args[2])
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], out, 0o644)
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

// writeHostile writes the adversarial corpus: each file aims at one way of
// making a decoder run long, allocate more than its header promised, or a
// parser loop (see media/photo/hostile). Larger variants (25 MiB of HEIF
// boxes, 9 MiB of APPn) are made by the tests from the same package rather
// than committed.
func writeHostile(dir, webpPath string) error {
	simple, err := os.ReadFile(webpPath)
	if err != nil {
		return err
	}
	flat := hostile.ProgressiveJPEG(640, 480, 0)
	files := map[string][]byte{
		// 20,000 end-of-band scans over a 12 MP frame: about a minute of image/jpeg.
		"scan-bomb.jpg": hostile.ProgressiveJPEG(4000, 3000, 20000),
		// Junk (a stuffed "FF 00" among it) before the frame header:
		// image/jpeg skips it.
		"junk-markers.jpg": hostile.InsertBeforeSOF(flat, []byte("\x00junk\xff\x00\x12")),
		// IFD0 that is its own next IFD, Exif IFD and GPS IFD.
		"exif-loop.jpg": hostile.WithExif(flat, hostile.ExifLoop()),
		// 49 MP of 16-bit RGBA zeros in 380 KB: 392 MB once inflated.
		"inflate-bomb.png": hostile.InflatePNG(7000, 7000),
		// A VP8X canvas of 100×100 around a 640×480 frame, and one of 16383².
		"canvas-small.webp": hostile.WebPCanvas(simple, 100, 100),
		"canvas-huge.webp":  hostile.WebPCanvas(simple, 16383, 16383),
		// 64 KiB of empty boxes after ftyp, and no meta box.
		"box-flood.heic": hostile.HEIFFlood(64 << 10),
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
