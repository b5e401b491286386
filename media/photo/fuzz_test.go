package photo

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/guidepost/guidepost/media/photo/hostile"
	"github.com/guidepost/guidepost/media/photo/internal/iccprofile"
)

// The fuzz targets cover every parser that reads upload bytes: Sniff and
// Probe in the request path, the EXIF and ICC readers behind Probe, and
// the decoders' agreement with the header Probe judged. `go test` runs
// their seeds (the test files, small hostile ones, and the corpus under
// testdata/fuzz); `go test -fuzz FuzzX` explores further.

// addSeeds adds the test photos that suit a target, and small hostile files.
func addSeeds(f *testing.F, keep func(name string) bool) {
	entries, _ := os.ReadDir(testdata)
	for _, e := range entries {
		if !keep(e.Name()) {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(testdata, e.Name())); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
}

func ext(exts ...string) func(string) bool {
	return func(name string) bool {
		for _, e := range exts {
			if filepath.Ext(name) == e {
				return true
			}
		}
		return false
	}
}

func FuzzSniff(f *testing.F) {
	addSeeds(f, func(string) bool { return true })
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Sniff(data)
		if (err == nil) != (got != Unknown) {
			t.Fatalf("Sniff = %v, %v", got, err)
		}
		if len(data) > SniffLen {
			if again, _ := Sniff(data[:SniffLen]); again != got {
				t.Fatalf("Sniff reads past SniffLen: %v, then %v", got, again)
			}
		}
	})
}

// fuzzProbe checks what Probe promises of a format: no panic; an accepted
// file is within the pixel limit, upright-able, weighed; and, since the
// limit keeps it small, decoding it yields the size the header declared
// (the weight was judged by that size).
func fuzzProbe(f *testing.F, format Format) {
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxPixels = 1 << 16
		info, err := Probe(bytes.NewReader(data), format, maxPixels)
		if err != nil {
			return
		}
		if info.Width*info.Height > maxPixels || info.Orientation < 1 || info.Orientation > 8 || info.RenderMemory() <= 0 {
			t.Fatalf("accepted %+v", info)
		}
		if format == HEIC {
			return // the WebAssembly decoder is too slow to fuzz through
		}
		img, err := decode(data, format)
		if err == nil && img.Bounds().Dx()*img.Bounds().Dy() > info.Width*info.Height {
			t.Fatalf("header %d×%d, decoded %v", info.Width, info.Height, img.Bounds())
		}
	})
}

func FuzzProbeJPEG(f *testing.F) {
	addSeeds(f, ext(".jpg"))
	f.Add(hostile.ProgressiveJPEG(64, 48, 2))
	f.Add(hostile.InsertBeforeSOF(hostile.ProgressiveJPEG(32, 32, 0), []byte("junk")))
	f.Add(hostile.WithExif(hostile.ProgressiveJPEG(32, 32, 0), hostile.ExifLoop()))
	fuzzProbe(f, JPEG)
}

func FuzzProbePNG(f *testing.F) {
	addSeeds(f, ext(".png"))
	f.Add(hostile.InflatePNG(64, 64))
	fuzzProbe(f, PNG)
}

func FuzzProbeWebP(f *testing.F) {
	addSeeds(f, ext(".webp"))
	fuzzProbe(f, WebP)
}

func FuzzProbeHEIF(f *testing.F) {
	addSeeds(f, ext(".heic"))
	f.Add(hostile.HEIFFlood(4096))
	fuzzProbe(f, HEIC)
}

func FuzzExifOrientation(f *testing.F) {
	f.Add(exifBlock(binary.BigEndian, 6))
	f.Add(exifBlock(binary.LittleEndian, 8))
	f.Add(hostile.ExifLoop())
	f.Add(append([]byte("Exif\x00\x00"), hostile.ExifLoop()...))
	f.Fuzz(func(t *testing.T, tiff []byte) {
		if o := exifOrientation(tiff); o < 0 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

func FuzzICC(f *testing.F) {
	f.Add(iccprofile.DisplayP3())
	f.Add(iccprofile.RGB("sRGB", iccprofile.SRGB, iccprofile.D65))
	f.Fuzz(func(t *testing.T, icc []byte) {
		isDisplayP3(icc)
		describe(icc)
	})
}
