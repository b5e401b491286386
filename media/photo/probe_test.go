package photo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func probeFile(t *testing.T, name string) (Info, error) {
	t.Helper()
	data := readTestdata(t, name)
	f, err := Sniff(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return Probe(bytes.NewReader(data), f, 0)
}

func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name         string
		w, h, orient int
		dw, dh       int
		p3           bool
	}{
		{"photo.jpg", 640, 480, 1, 640, 480, false},
		{"photo.png", 640, 480, 1, 640, 480, false},
		{"photo.webp", 640, 480, 1, 640, 480, false},
		{"photo.heic", 640, 480, 1, 640, 480, false},
		{"gps.jpg", 640, 480, 1, 640, 480, false},
		{"orient-1.jpg", 240, 160, 1, 240, 160, false},
		{"orient-2.jpg", 240, 160, 2, 240, 160, false},
		{"orient-3.jpg", 240, 160, 3, 240, 160, false},
		{"orient-4.jpg", 240, 160, 4, 240, 160, false},
		{"orient-5.jpg", 160, 240, 5, 240, 160, false},
		{"orient-6.jpg", 160, 240, 6, 240, 160, false},
		{"orient-7.jpg", 160, 240, 7, 240, 160, false},
		{"orient-8.jpg", 160, 240, 8, 240, 160, false},
		{"orient-6.webp", 160, 240, 6, 240, 160, false},
		{"orient-6.png", 160, 240, 6, 240, 160, false},
		{"heic-exif6.heic", 160, 240, 6, 240, 160, false},
		{"heic-irot1.heic", 160, 240, 8, 240, 160, false}, // irot 1: 90° anticlockwise
		{"heic-imir1.heic", 240, 160, 2, 240, 160, false},
		{"heic-irot1-imir0.heic", 160, 240, 5, 240, 160, false},
		{"p3.jpg", 192, 64, 1, 192, 64, true},
		{"p3.png", 192, 64, 1, 192, 64, true},
		{"p3-prof.heic", 192, 64, 1, 192, 64, true},
		{"p3-nclx.heic", 192, 64, 1, 192, 64, true},
		{"srgb-profile.jpg", 192, 64, 1, 192, 64, false},
		{"corrupt.jpg", 640, 480, 1, 640, 480, false}, // the header is intact
		{"polyglot.jpg", 240, 160, 1, 240, 160, false},
	} {
		info, err := probeFile(t, tc.name)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := [...]any{info.Width, info.Height, info.Orientation, info.DisplayWidth, info.DisplayHeight, info.DisplayP3}
		want := [...]any{tc.w, tc.h, tc.orient, tc.dw, tc.dh, tc.p3}
		if got != want {
			t.Errorf("%s: Probe = %v; want %v", tc.name, got, want)
		}
	}
}

func TestProbeCorruptHeader(t *testing.T) {
	if _, err := probeFile(t, "polyglot-header.jpg"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("polyglot-header.jpg: %v; want ErrCorrupt", err)
	}
	heic := readTestdata(t, "photo.heic")
	if _, err := Probe(bytes.NewReader(heic[:40]), HEIC, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated HEIC: %v; want ErrCorrupt", err)
	}
}

// bombs returns files whose headers declare 60000×60000 in each parser's way.
func bombs(t *testing.T) map[string][]byte {
	out := map[string][]byte{"bomb.png": readTestdata(t, "bomb.png")}

	jpg := bytes.Clone(readTestdata(t, "photo.jpg"))
	sof := bytes.Index(jpg, []byte{0xFF, 0xC0}) // baseline frame header
	if sof < 0 {
		t.Fatal("no SOF0 in photo.jpg")
	}
	binary.BigEndian.PutUint16(jpg[sof+5:], 60000)
	binary.BigEndian.PutUint16(jpg[sof+7:], 60000)
	out["sof 60000².jpg"] = jpg

	heic := bytes.Clone(readTestdata(t, "photo.heic"))
	ispe := bytes.Index(heic, []byte("ispe"))
	if ispe < 0 {
		t.Fatal("no ispe in photo.heic")
	}
	binary.BigEndian.PutUint32(heic[ispe+8:], 60000)
	binary.BigEndian.PutUint32(heic[ispe+12:], 60000)
	out["ispe 60000².heic"] = heic
	return out
}

// The limit is enforced from the header, before any allocation in proportion
// to the pixels: 60000² would be 14 GB of RGBA.
func TestProbeRejectsBombsWithoutAllocating(t *testing.T) {
	for name, data := range bombs(t) {
		f, err := Sniff(data)
		if err != nil {
			t.Fatal(name, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Probe(bytes.NewReader(data), f, DefaultMaxPixels)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooManyPixels) {
			t.Errorf("%s: %v; want ErrTooManyPixels", name, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: Probe allocated %d bytes", name, alloc)
		}
	}
}

func TestProbeMaxPixels(t *testing.T) {
	data := readTestdata(t, "photo.jpg") // 640×480 = 307200
	if _, err := Probe(bytes.NewReader(data), JPEG, 640*480); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := Probe(bytes.NewReader(data), JPEG, 640*480-1); !errors.Is(err, ErrTooManyPixels) {
		t.Errorf("over the limit: %v", err)
	}
}

func TestExifOrientationBounds(t *testing.T) {
	good := exifBlock(binary.BigEndian, 6)
	if o := exifOrientation(good); o != 6 {
		t.Fatalf("good block: %d", o)
	}
	if o := exifOrientation(exifBlock(binary.LittleEndian, 8)); o != 8 {
		t.Fatalf("little-endian block: %d", o)
	}
	const entryEnd = 8 + 2 + 12 // header, entry count, the entry
	for i := range len(good) {  // every truncation: no panic, no garbage
		want := 0
		if i >= entryEnd {
			want = 6
		}
		if o := exifOrientation(good[:i]); o != want {
			t.Errorf("truncated to %d: %d; want %d", i, o, want)
		}
	}
	if o := exifOrientation(exifBlock(binary.BigEndian, 9)); o != 0 {
		t.Errorf("out of range value: %d", o)
	}
}

// exifBlock is a TIFF block with one IFD0 entry: Orientation.
func exifBlock(bo binary.AppendByteOrder, o uint16) []byte {
	b := []byte("MM\x00*")
	if bo == binary.LittleEndian {
		b = []byte("II*\x00")
	}
	b = bo.AppendUint32(b, 8)
	b = bo.AppendUint16(b, 1)
	b = bo.AppendUint16(b, 0x0112)
	b = bo.AppendUint16(b, 3)
	b = bo.AppendUint32(b, 1)
	b = bo.AppendUint16(b, o)
	b = bo.AppendUint16(b, 0)
	return bo.AppendUint32(b, 0)
}

func TestOrientationAlgebra(t *testing.T) {
	for o := 1; o <= 8; o++ {
		if got := orientationMatrix(o).orientation(); got != o {
			t.Errorf("round trip %d: %d", o, got)
		}
	}
	for _, tc := range [][3]int{{6, 6, 3}, {6, 8, 1}, {2, 2, 1}, {4, 8, 5}, {2, 8, 7}, {3, 2, 4}} {
		if got := orientationMatrix(tc[0]).mul(orientationMatrix(tc[1])).orientation(); got != tc[2] {
			t.Errorf("%d∘%d = %d; want %d", tc[0], tc[1], got, tc[2])
		}
	}
}

func BenchmarkProbe12MP(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(benchdata, "photo-12mp.jpg"))
	if err != nil {
		b.Skip("run scripts/gen-testdata.sh --bench")
	}
	r := bytes.NewReader(data)
	for b.Loop() {
		if _, err := Probe(r, JPEG, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRenderMemory(t *testing.T) {
	info, err := probeFile(t, "photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	base := info.RenderMemory()
	if base < 640*480*3 || base > 64<<20 {
		t.Errorf("640×480 baseline JPEG: %d bytes", base)
	}
	var prog bytes.Buffer // the same photo, progressive: SOF2 instead of SOF0
	prog.Write(bytes.Replace(readTestdata(t, "photo.jpg"), []byte{0xFF, 0xC0}, []byte{0xFF, 0xC2}, 1))
	info, err = Probe(bytes.NewReader(prog.Bytes()), JPEG, 0)
	if err != nil || info.RenderMemory() <= base {
		t.Errorf("progressive: %d bytes, %v; want more than baseline's %d", info.RenderMemory(), err, base)
	}
}
