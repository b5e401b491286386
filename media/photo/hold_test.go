package photo

import (
	"image"
	"math/rand/v2"
	"slices"
	"testing"
)

// grainyRGBA is a w×h gradient under seeded grain: the detail where a
// WebP at a low quality falls well short of a JPEG's SSIM.
func grainyRGBA(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(7, 23))
	for y := range h {
		for x := range w {
			v := 60 + 120*x/w + int(rng.NormFloat64()*18)
			px := img.Pix[img.PixOffset(x, y):][:4]
			px[0], px[1], px[2], px[3] = uint8(min(255, max(0, v))), uint8(min(255, max(0, v-20))), uint8(min(255, max(0, 200-v/2))), 255
		}
	}
	return img
}

// A WebP started at a quality too low for the JPEG's SSIM is encoded again
// at higher qualities until it reaches it, and the file that does is kept.
func TestSSIMHoldRaisesQualityWhenShort(t *testing.T) {
	img := grainyRGBA(320, 240)
	jpg, err := encodeJPEG(img, WebQuality)
	if err != nil {
		t.Fatal(err)
	}
	var tried []int
	var last []byte
	enc := func(q int) ([]byte, error) {
		tried = append(tried, q)
		s := webpLossy
		s.quality = q
		last, err = encodeWebPRGBA(img, s)
		return last, err
	}
	h := ssimHold{ref: img, jpeg: jpg}
	want, err := h.target()
	if err != nil {
		t.Fatal(err)
	}
	const start = 60
	first, _ := enc(start)
	if got, _ := h.measure(EncodingWebP, first); got >= want {
		t.Fatalf("WebP q%d already at %.5f against the JPEG's %.5f: no test", start, got, want)
	}
	tried = nil
	out, err := h.encode(EncodingWebP, start, enc)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := h.measure(EncodingWebP, out)
	t.Logf("qualities %v, %d re-encodes: SSIM %.5f (%d bytes) against the JPEG's %.5f (%d bytes)", tried, h.reencodes, got, len(out), want, len(jpg))
	if got < want {
		t.Errorf("SSIM %.5f, below the JPEG's %.5f after qualities %v", got, want, tried)
	}
	if h.reencodes != len(tried)-1 || h.reencodes < 1 || h.reencodes > holdTries {
		t.Errorf("%d re-encodes for qualities %v", h.reencodes, tried)
	}
	if !slices.IsSorted(tried) || &out[0] != &last[0] {
		t.Errorf("qualities %v; the file kept is not the last one made", tried)
	}
}

// When raising the quality gains nothing (AV1's rounding of flat colours,
// a JPEG that is nearly its original again), the search stops after one
// raise and keeps the first file, the one with fewest bytes.
func TestSSIMHoldStopsWhenARaiseGainsNothing(t *testing.T) {
	img := grainyRGBA(64, 48)
	jpg, err := encodeJPEG(img, 95)
	if err != nil {
		t.Fatal(err)
	}
	s := webpLossy
	s.quality = 20
	short, err := encodeWebPRGBA(img, s)
	if err != nil {
		t.Fatal(err)
	}
	var tried []int
	h := ssimHold{ref: img, jpeg: jpg}
	out, err := h.encode(EncodingWebP, 20, func(q int) ([]byte, error) {
		tried = append(tried, q)
		return slices.Clone(short), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tried) != 2 || h.reencodes != 1 || &out[0] == &short[0] || !slices.Equal(out, short) {
		t.Errorf("qualities %v, %d re-encodes", tried, h.reencodes)
	}
}

// nextQuality steps by holdStep first, then by what the last raise
// gained, and gives up where that gain puts the goal past q100.
func TestNextQuality(t *testing.T) {
	for _, c := range []struct {
		lastQ     int
		lastGot   float64
		q         int
		got, want float64
		next      int
		ok        bool
	}{
		{86, 0.9675, 86, 0.9675, 0.9834, 90, true},
		{86, 0.9675, 90, 0.9736, 0.9834, 97, true},    // 6.5 steps of 0.0015
		{75, 0.9735, 79, 0.9760, 0.9834, 91, true},    // 11.8 steps, at most 12
		{75, 0.9735, 79, 0.9736, 0.9834, 0, false},    // 98 steps: past q100
		{80, 0.99998, 84, 0.99998, 0.99999, 0, false}, // no gain
		{90, 0.98, 94, 0.99, 0.991, 96, true},         // at least 2
		{100, 0.98, 100, 0.98, 0.99, 0, false},
		{92, 0.970, 96, 0.980, 0.990, 100, true}, // 4 steps: up to 100
	} {
		next, ok := nextQuality(c.lastQ, c.lastGot, c.q, c.got, c.want)
		if next != c.next || ok != c.ok {
			t.Errorf("%+v: %d %v", c, next, ok)
		}
	}
}

// BenchmarkSSIMWeb is what holding one web-size WebP to its JPEG costs
// beyond the encodes: decoding each, and the two SSIMs.
func BenchmarkSSIMWeb(b *testing.B) {
	img := grainyRGBA(WebMax, WebMax*3/4)
	jpg, err := encodeJPEG(img, WebQuality)
	if err != nil {
		b.Fatal(err)
	}
	planes, err := decodeEncoded(EncodingJPEG, jpg) // a reference in planes, as most are
	if err != nil {
		b.Fatal(err)
	}
	s := webpLossy
	s.quality = webQ.webp
	wp, err := encodeWebPRGBA(img, s)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		e    Encoding
		data []byte
	}{{EncodingJPEG, jpg}, {EncodingWebP, wp}} {
		dec, err := decodeEncoded(c.e, c.data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("decode-"+string(c.e), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				decodeEncoded(c.e, c.data)
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
		b.Run("ssim-"+string(c.e), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				ssim(planes, dec)
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
