package photo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

const testdata = "../../testdata/photos"

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatalf("%v (run scripts/gen-testdata.sh)", err)
	}
	return b
}

// Every file in testdata/photos has a verdict here, so a new file without one
// fails the test.
var sniffWant = map[string]Format{
	"photo.jpg": JPEG, "photo.png": PNG, "photo.webp": WebP, "photo.heic": HEIC,
	"alpha.png": PNG, "cmyk.jpg": JPEG, "photo-16bit.png": PNG, "gps.jpg": JPEG, "corrupt.jpg": JPEG, "bomb.png": PNG,
	"gps.png": PNG, "gps.webp": WebP, "gps.heic": HEIC,
	"p3.jpg": JPEG, "p3.png": PNG, "p3-prof.heic": HEIC, "p3-nclx.heic": HEIC,
	"srgb-profile.jpg": JPEG,
	"orient-1.jpg":     JPEG, "orient-2.jpg": JPEG, "orient-3.jpg": JPEG, "orient-4.jpg": JPEG,
	"orient-5.jpg": JPEG, "orient-6.jpg": JPEG, "orient-7.jpg": JPEG, "orient-8.jpg": JPEG,
	"orient-6.webp": WebP, "orient-6.png": PNG,
	"heic-exif6.heic": HEIC, "heic-irot1.heic": HEIC, "heic-imir1.heic": HEIC,
	"heic-irot1-imir0.heic": HEIC, "heic-64px.heic": HEIC,
	// A JPEG by its magic bytes: accepted here; what follows is Probe's and
	// Render's business, and derivatives are re-encoded pixels only.
	"polyglot.jpg": JPEG, "polyglot-header.jpg": JPEG,
	// Refused whatever the name says.
	"image.svg": Unknown, "page.html": Unknown, "doc.pdf": Unknown, "archive.zip": Unknown,
	"text.jpg": Unknown, "image.gif": Unknown, "image.tiff": Unknown,
}

func TestSniffTestdata(t *testing.T) {
	entries, err := os.ReadDir(testdata)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		want, ok := sniffWant[e.Name()]
		if !ok {
			t.Errorf("%s: no expected verdict", e.Name())
			continue
		}
		head := readTestdata(t, e.Name())
		got, err := Sniff(head[:min(len(head), SniffLen)])
		if want == Unknown {
			if !errors.Is(err, ErrUnsupported) || got != Unknown {
				t.Errorf("%s: Sniff = %v, %v; want ErrUnsupported", e.Name(), got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: Sniff = %v, %v; want %v", e.Name(), got, err, want)
		}
	}
}

func ftyp(major string, compat ...string) []byte {
	b := []byte{0, 0, 0, byte(16 + 4*len(compat))}
	b = append(b, "ftyp"+major+"\x00\x00\x00\x00"...)
	for _, c := range compat {
		b = append(b, c...)
	}
	return append(b, "\x00\x00\x00\x08free"...)
}

func TestSniffHeads(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []byte
		want Format
	}{
		{"heic", ftyp("heic", "mif1", "heic"), HEIC},
		{"heix", ftyp("heix", "mif1", "heix"), HEIC}, // 10-bit iPhone/Android, missed by filetype
		{"mif1+heic", ftyp("mif1", "mif1", "heic"), HEIC},
		{"mif1+heix", ftyp("mif1", "mif1", "heix"), HEIC},
		{"msf1+hevc", ftyp("msf1", "msf1", "hevc"), HEIC},
		{"hevc", ftyp("hevc", "msf1", "hevc"), HEIC},
		{"avif", ftyp("avif", "mif1", "miaf"), Unknown},
		{"mif1+avif", ftyp("mif1", "mif1", "avif"), Unknown}, // structural brand alone is not HEVC
		{"mp4", ftyp("isom", "isom", "mp42"), Unknown},
		{"bad ftyp size", append([]byte{0, 0, 0, 5}, ftyp("heic")[4:]...), Unknown},
		{"gif", []byte("GIF89a\x10\x00\x10\x00\x00\x00\x00"), Unknown},
		{"tiff", []byte("II*\x00\x08\x00\x00\x00\x00\x00\x00\x00"), Unknown},
		{"riff wave", []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00"), Unknown},
		{"riff without vp8", []byte("RIFF\x24\x00\x00\x00WEBPJUNK\x10\x00\x00\x00"), Unknown},
		{"webp lossy", []byte("RIFF\x24\x00\x00\x00WEBPVP8 \x10\x00\x00\x00"), WebP},
		{"jpeg soi", []byte{0xFF, 0xD8, 0xFF, 0xE0}, JPEG},
		{"two bytes", []byte{0xFF, 0xD8}, Unknown},
		{"empty", nil, Unknown},
		{"svg with bom", []byte("\xef\xbb\xbf<svg xmlns='http://www.w3.org/2000/svg'/>"), Unknown},
	} {
		got, err := Sniff(tc.head)
		if got != tc.want || (tc.want == Unknown) != errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: Sniff = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestFormatMIME(t *testing.T) {
	if JPEG.MIME() != "image/jpeg" || HEIC.MIME() != "image/heic" || Unknown.MIME() != "application/octet-stream" {
		t.Error("MIME")
	}
}
