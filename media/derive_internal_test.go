package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/guidepost/guidepost/media/photo"
)

// jpegHeader is a JPEG that ends after its frame header: enough for Probe
// (size, and progressive from the SOF marker), nothing for a decoder. The
// JFIF segment tells image/jpeg the colour model before the first scan.
func jpegHeader(sof byte, w, h int) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}
	b = append(b, 0xFF, sof, 0x00, 0x11, 8)
	b = binary.BigEndian.AppendUint16(b, uint16(h))
	b = binary.BigEndian.AppendUint16(b, uint16(w))
	b = append(b, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1)
	return append(b, 0xFF, 0xD9)
}

// heicHeader is a small test HEIC whose ispe box declares w × h.
func heicHeader(t *testing.T, w, h int) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "photos", "heic-64px.heic"))
	if err != nil {
		t.Fatalf("%v (run scripts/gen-testdata.sh)", err)
	}
	i := bytes.Index(b, []byte("ispe"))
	if i < 0 || bytes.Count(b, []byte("ispe")) != 1 {
		t.Fatal("heic-64px.heic: want one ispe box")
	}
	binary.BigEndian.PutUint32(b[i+8:], uint32(w))
	binary.BigEndian.PutUint32(b[i+12:], uint32(h))
	return b
}

func probe(t *testing.T, data []byte) photo.Info {
	t.Helper()
	info, err := photo.ProbeBytes(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// The decode semaphore counts MiB of the memory a render needs, not
// megapixels: a progressive JPEG and a HEIC cost far more per pixel than a
// baseline JPEG, and a 48 MP HEIC through WebAssembly needs more than the
// whole budget of two slots, so it renders alone.
func TestRenderWeightIsTheRenderMemory(t *testing.T) {
	s := New(Deps{}, Config{RenderSlots: 2})
	if s.renderBudget() != 800 {
		t.Fatalf("budget %d MiB, want 400 a slot", s.renderBudget())
	}
	baseline := s.renderWeight(probe(t, jpegHeader(0xC0, 4000, 3000)))
	progressive := s.renderWeight(probe(t, jpegHeader(0xC2, 4000, 3000)))
	heic12 := s.renderWeight(probe(t, heicHeader(t, 4000, 3000)))
	heic48 := s.renderWeight(probe(t, heicHeader(t, 8000, 6000)))
	t.Logf("12 MP: baseline %d MiB, progressive %d MiB, HEIC (%s) %d MiB; 48 MP HEIC %d MiB",
		baseline, progressive, photo.HEICDecoder(), heic12, heic48)
	if baseline < 60 || baseline > 80 {
		t.Errorf("12 MP baseline JPEG: %d MiB, want ~70 (4 B/px and the fixed buffers)", baseline)
	}
	huge := New(Deps{}, Config{RenderSlots: 1})
	prog48 := huge.renderWeight(probe(t, jpegHeader(0xC2, 8000, 6000)))
	switch photo.JPEGCodec {
	case "image/jpeg": // 4 bytes a coefficient besides the pixels
		if progressive < 2*baseline {
			t.Errorf("12 MP progressive JPEG: %d MiB, want over twice the baseline's %d", progressive, baseline)
		}
		if prog48 != huge.renderBudget() {
			t.Errorf("48 MP progressive JPEG (~570 MiB) with one slot: want the whole budget, so it renders alone")
		}
	default: // libjpeg-turbo: 2 bytes a coefficient, pixels at a reduced scale
		if coeffs := int64(2*1.5*12e6) >> 20; progressive < baseline+coeffs {
			t.Errorf("12 MP progressive JPEG: %d MiB, want the baseline's %d and %d of coefficients", progressive, baseline, coeffs)
		}
		if coeffs := int64(2*1.5*48e6) >> 20; prog48 < coeffs || prog48 >= huge.renderBudget() {
			t.Errorf("48 MP progressive JPEG: %d MiB, want over its %d MiB of coefficients, under a slot", prog48, coeffs)
		}
	}
	// The Dockerfile builds with WebAssembly HEIC; `go test -tags nodynamic`
	// checks it here. Native libheif needs ~10 B/px.
	if photo.HEICDecoder() == "wasm" {
		if heic12 < 300 || heic12 > 400 {
			t.Errorf("12 MP HEIC in WebAssembly: %d MiB, want ~330: one slot", heic12)
		}
		if heic48 != s.renderBudget() {
			t.Errorf("48 MP HEIC in WebAssembly: %d MiB, want the whole budget (%d): it renders alone", heic48, s.renderBudget())
		}
	}
}

// A render waits until its memory is free, and only that long: with 100 MiB
// left, a 12 MP baseline JPEG (~70 MiB) starts and a progressive one
// (~160 MiB) waits. The test files have no pixel data, so a render that
// starts fails as corrupt; one that waits runs out of time.
func TestRenderWaitsForItsMemory(t *testing.T) {
	s := New(Deps{}, Config{RenderSlots: 1})
	held := s.renderBudget() - 100
	if err := s.render.Acquire(context.Background(), held); err != nil {
		t.Fatal(err)
	}
	try := func(data []byte) string {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := s.renderBounded(ctx, data)
		return FailureReason(err)
	}
	baseline, progressive := jpegHeader(0xC0, 4000, 3000), jpegHeader(0xC2, 4000, 3000)
	if got := try(baseline); got != reasonCorrupt {
		t.Errorf("baseline with 100 MiB free: %s, want it rendered (corrupt)", got)
	}
	if got := try(progressive); got != "canceled" {
		t.Errorf("progressive with 100 MiB free: %s, want it to wait (canceled)", got)
	}
	s.render.Release(held)
	if got := try(progressive); got != reasonCorrupt {
		t.Errorf("progressive with the budget free: %s, want it rendered (corrupt)", got)
	}
}
