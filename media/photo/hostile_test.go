package photo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"runtime"
	"testing"

	"github.com/guidepost/guidepost/media/photo/hostile"
)

// A scan bomb (a flat progressive frame whose last scan repeats) is refused
// by Probe, from its markers alone; a file with as many scans as MaxScans
// allows is not.
func TestProbeRefusesScanBombs(t *testing.T) {
	const base = 4 // one DC scan, one AC scan per component
	for extra, want := range map[int]error{0: nil, MaxScans - base: nil, MaxScans - base + 1: ErrTooComplex, 40000: ErrTooComplex} {
		data := hostile.ProgressiveJPEG(640, 480, extra)
		_, err := Probe(bytes.NewReader(data), JPEG, 0)
		if !errors.Is(err, want) {
			t.Errorf("%d scans: %v; want %v", base+extra, err, want)
		}
	}
}

// Junk bytes between segments and megabytes of APPn before the frame
// header do not hide it: image/jpeg skips both and decodes a progressive
// frame, so the photo must be weighed as progressive.
func TestProbeFindsTheFrameAfterJunkAndAPPn(t *testing.T) {
	prog := hostile.ProgressiveJPEG(640, 480, 0)
	// The file's own size counts in the weight; only the rest is compared.
	weight := func(i Info) int64 { return i.RenderMemory() - i.size }
	want := weight(probeBytes(t, prog))
	if baseline := weight(probeBytes(t, readTestdata(t, "photo.jpg"))); want <= baseline {
		t.Fatalf("progressive %d bytes, baseline %d: the test needs them apart", want, baseline)
	}
	for name, data := range map[string][]byte{
		"junk before SOF":   hostile.InsertBeforeSOF(prog, []byte("\x00junk\xff\x00\x12\x34")),
		"9 MiB APPn":        hostile.InsertBeforeSOF(prog, hostile.APPSegments(9<<20)),
		"junk and 9 MiB":    hostile.InsertBeforeSOF(prog, append([]byte("junk"), hostile.APPSegments(9<<20)...)),
		"exif with loops":   hostile.WithExif(prog, hostile.ExifLoop()),
		"fill bytes before": hostile.InsertBeforeSOF(prog, []byte{0xFF, 0xFF, 0xFF}),
	} {
		if got := weight(probeBytes(t, data)); got != want {
			t.Errorf("%s: weighed %d bytes; want %d, as without", name, got, want)
		}
		if _, err := decode(data, JPEG); err != nil {
			t.Errorf("%s: image/jpeg refuses it (%v): the case is moot", name, err)
		}
	}
	if o := probeBytes(t, hostile.WithExif(prog, hostile.ExifLoop())).Orientation; o != 6 {
		t.Errorf("looping EXIF: orientation %d; want 6", o)
	}
}

func probeBytes(t *testing.T, data []byte) Info {
	t.Helper()
	info, err := ProbeBytes(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// RenderMemory is an upper bound: a render allocates, in all, no more than
// it (what it holds at its peak is less than what it allocates in all, so
// this is a bound on the peak however the collector runs).
func TestRenderMemoryBoundsWhatRenderAllocates(t *testing.T) {
	files := map[string][]byte{
		"progressive 4:4:4": hostile.ProgressiveJPEG(2000, 1500, 0),
		"16-bit RGBA PNG":   hostile.InflatePNG(1500, 1000),
	}
	for _, name := range []string{"photo.jpg", "photo.png", "photo.webp", "p3.jpg", "orient-6.jpg", "alpha.png"} {
		files[name] = readTestdata(t, name)
	}
	for name, data := range files {
		info := probeBytes(t, data)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := RenderProbed(context.Background(), data, info, Options{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		alloc := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%s: allocated %d MiB, weighed %d MiB", name, alloc>>20, info.RenderMemory()>>20)
		if alloc > info.RenderMemory() {
			t.Errorf("%s: Render allocated %d bytes, weighed at %d", name, alloc, info.RenderMemory())
		}
	}
}

// The WebP frame's own size is checked against the canvas the header
// declares, at upload: the canvas is what the pixel limit and the weight
// were judged by.
func TestProbeRefusesAWebPCanvasThatLies(t *testing.T) {
	simple := readTestdata(t, "photo.webp") // 640×480, one VP8 frame
	if _, err := Probe(bytes.NewReader(hostile.WebPCanvas(simple, 640, 480)), WebP, 0); err != nil {
		t.Fatalf("an honest canvas: %v", err)
	}
	for _, size := range [][2]int{{64, 48}, {16383, 16383}, {640, 481}} {
		_, err := Probe(bytes.NewReader(hostile.WebPCanvas(simple, size[0], size[1])), WebP, 0)
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooManyPixels) {
			t.Errorf("canvas %v around a 640×480 frame: %v", size, err)
		}
	}
}

// countingReader counts the calls a parser makes on its input.
type countingReader struct {
	io.ReadSeeker
	calls int
}

func (c *countingReader) Read(p []byte) (int, error) { c.calls++; return c.ReadSeeker.Read(p) }
func (c *countingReader) Seek(off int64, whence int) (int64, error) {
	c.calls++
	return c.ReadSeeker.Seek(off, whence)
}

// 25 MiB of empty HEIF boxes is refused after a bounded number of reads,
// not after walking three million boxes.
func TestProbeHEIFBoxFloodIsBounded(t *testing.T) {
	r := &countingReader{ReadSeeker: bytes.NewReader(hostile.HEIFFlood(25 << 20))}
	if _, err := Probe(r, HEIC, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("box flood: %v; want ErrCorrupt", err)
	}
	if r.calls > 1000 {
		t.Errorf("box flood: %d reads and seeks", r.calls)
	}
}

// An Info crosses to a render child and back unchanged, weight included.
func TestInfoRoundTrip(t *testing.T) {
	for _, data := range [][]byte{readTestdata(t, "orient-6.jpg"), readTestdata(t, "p3-nclx.heic"), readTestdata(t, "heic-irot1.heic"),
		readTestdata(t, "photo.webp"), hostile.ProgressiveJPEG(64, 48, 1), hostile.InflatePNG(32, 32)} {
		info := probeBytes(t, data)
		wire, err := info.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Info
		if err := back.UnmarshalBinary(wire); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, info) {
			t.Errorf("%+v came back as %+v", info, back)
		}
	}
}
