package photo

import (
	"bytes"
	"math"
	"os"
	"testing"
	"time"
)

// The GPS test photos carry these positions and times (scripts/gen-testdata.sh).
func TestReadCaptureFromEveryContainer(t *testing.T) {
	cases := []struct {
		file     string
		f        Format
		lat, lng float64
		taken    string // RFC 3339, "" when the file has no time
	}{
		{"gps.jpg", JPEG, 48.858370, 2.294481, ""},
		{"gps.png", PNG, 37.566535, 126.977969, "2026-05-01T09:30:15+09:00"},
		{"gps.webp", WebP, 35.658581, 139.745433, "2026-04-02T18:05:00Z"},
		{"gps.heic", HEIC, 40.689247, -74.044502, "2026-03-03T12:00:00-05:00"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile("../../testdata/photos/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			c := ReadCapture(data, tc.f)
			if !c.HasGPS || math.Abs(c.Lat-tc.lat) > 1e-5 || math.Abs(c.Lng-tc.lng) > 1e-5 {
				t.Fatalf("gps %v %.6f,%.6f; want %.6f,%.6f", c.HasGPS, c.Lat, c.Lng, tc.lat, tc.lng)
			}
			if tc.taken == "" {
				if !c.TakenAt.IsZero() {
					t.Fatalf("taken at %v, want none", c.TakenAt)
				}
				return
			}
			want, _ := time.Parse(time.RFC3339, tc.taken)
			if !c.TakenAt.Equal(want) || c.TakenAt.Format(time.RFC3339) != tc.taken {
				t.Fatalf("taken at %v, want %s", c.TakenAt, tc.taken)
			}
		})
	}
}

func TestReadCaptureWithoutMetadataIsEmpty(t *testing.T) {
	for _, tc := range []struct {
		file string
		f    Format
	}{{"photo.jpg", JPEG}, {"photo.png", PNG}, {"photo.webp", WebP}, {"photo.heic", HEIC}, {"corrupt.jpg", JPEG}} {
		data, err := os.ReadFile("../../testdata/photos/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if c := ReadCapture(data, tc.f); c != (Capture{}) {
			t.Fatalf("%s: %+v, want nothing", tc.file, c)
		}
	}
}

// Truncating a real EXIF block anywhere must never panic or invent a place.
func TestParseCaptureSurvivesTruncation(t *testing.T) {
	data, err := os.ReadFile("../../testdata/photos/gps.png")
	if err != nil {
		t.Fatal(err)
	}
	raw := readMetaBytes(data, PNG)
	if len(raw) == 0 {
		t.Fatal("no EXIF in gps.png")
	}
	for n := range len(raw) {
		c := parseCapture(raw[:n])
		if c.HasGPS && (math.Abs(c.Lat-37.566535) > 1e-5 || math.Abs(c.Lng-126.977969) > 1e-5) {
			t.Fatalf("at %d bytes: invented %+v", n, c)
		}
	}
}

func readMetaBytes(data []byte, f Format) []byte {
	return readMeta(bytes.NewReader(data), f).exif
}

// No derivative of a photo with a place and a time carries either: not as
// EXIF a reader would find, and not as the raw bytes of its GPS rationals.
func TestDerivativesCarryNoCapture(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Format
	}{{"gps.jpg", JPEG}, {"gps.png", PNG}, {"gps.webp", WebP}, {"gps.heic", HEIC}} {
		orig := readTestdata(t, tc.name)
		raw := exifOf(t, orig, tc.f)
		gps := gpsRationals(t, raw)
		if !bytes.Contains(orig, gps) {
			t.Fatalf("%s: the GPS bytes are not in the original", tc.name)
		}
		res := renderFile(t, tc.name)
		for _, d := range [][]byte{res.Web.JPEG, res.Thumb.JPEG} {
			if c := ReadCapture(d, JPEG); c != (Capture{}) {
				t.Fatalf("%s: derivative carries %+v", tc.name, c)
			}
			if bytes.Contains(d, gps) || bytes.Contains(d, []byte("Exif\x00\x00")) {
				t.Fatalf("%s: derivative carries EXIF", tc.name)
			}
		}
	}
}

func exifOf(t *testing.T, data []byte, f Format) []byte {
	t.Helper()
	if f == HEIC {
		h, err := readHEIF(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return h.exif
	}
	return readMetaBytes(data, f)
}

// gpsRationals returns the 24 bytes of the GPSLatitude value.
func gpsRationals(t *testing.T, raw []byte) []byte {
	t.Helper()
	tb, ok := newTIFFBlock(raw)
	if !ok {
		t.Fatal("no TIFF block")
	}
	ifd0 := tb.ifd(int64(tb.bo.Uint32(tb.b[4:8])))
	gps := tb.ifd(int64(tb.bo.Uint32(ifd0[tagGPSIFD].value)))
	b, ok := tb.data(gps[tagGPSLat], 8)
	if !ok || len(b) != 24 {
		t.Fatal("no GPSLatitude")
	}
	return b
}
