package photo

import (
	"image"
	"math"
	"time"
)

// The qualities (render.go) suit most photos, and Grainy moves a grainy
// one to higher ones, but bits per pixel cannot tell every photo apart:
// the benchmark HEIC (smooth, light grain) at 2048 px keeps an SSIM of
// 0.983 in JPEG and 0.968 in WebP at the grain quality. So each WebP and
// AVIF is measured after it is encoded, against the pixels the JPEG was
// made from, and encoded again at a higher quality while it is short.
const (
	// holdStep is the first raise; later ones follow the SSIM the last
	// raise bought (nextQuality), from holdMinStep to holdMaxStep.
	holdStep, holdMinStep, holdMaxStep = 4, 2, 12
	// holdTries bounds the encodes after the first: at most four more
	// WebPs (about 0.1 CPU-s each at 2048 px) or AVIFs (about 1).
	holdTries = 4
)

// ssimHold holds one derivative's other encodings to its JPEG's SSIM.
type ssimHold struct {
	ref  image.Image // the pixels the JPEG was made from
	jpeg []byte
	want float64 // the JPEG's SSIM, once measured
	// reencodes counts the encodes redone; spent is the time measuring
	// and encoding again took.
	reencodes int
	spent     time.Duration
}

// target is the JPEG's SSIM, measured on first use (a derivative rendered
// in JPEG alone never pays for it).
func (h *ssimHold) target() (float64, error) {
	if h.want == 0 {
		img, err := decodeEncoded(EncodingJPEG, h.jpeg)
		if err != nil {
			return 0, err
		}
		h.want = ssim(h.ref, img)
	}
	return h.want, nil
}

func (h *ssimHold) measure(e Encoding, data []byte) (float64, error) {
	img, err := decodeEncoded(e, data)
	if err != nil {
		return 0, err
	}
	return ssim(h.ref, img), nil
}

// encode encodes in e at quality q with enc, and again at higher qualities
// while the file is further from the reference than the JPEG: the first
// file that reaches the JPEG's SSIM is kept. When none does (a search that
// reaches q100, runs out of tries, or whose last raise says the goal lies
// past q100), the first file is kept: the raises bought bytes, not the goal.
// Two such cases are known (formats_test.go, ssimNotMet): an unresized
// JPEG's web size, which is nearly the original file again, and AV1's
// rounding of flat colours.
func (h *ssimHold) encode(e Encoding, q int, enc func(q int) ([]byte, error)) ([]byte, error) {
	first, err := enc(q)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() { h.spent += time.Since(start) }()
	want, err := h.target()
	if err != nil {
		return nil, err
	}
	got, err := h.measure(e, first)
	if err != nil {
		return nil, err
	}
	lastQ, lastGot := q, got
	for try := 0; got < want && try < holdTries; try++ {
		next, ok := nextQuality(lastQ, lastGot, q, got, want)
		if !ok {
			break
		}
		out, err := enc(next)
		if err != nil {
			return nil, err
		}
		h.reencodes++
		score, err := h.measure(e, out)
		if err != nil {
			return nil, err
		}
		if score >= want {
			return out, nil
		}
		lastQ, lastGot, q, got = q, got, next, score
	}
	return first, nil
}

// nextQuality is the quality to try after q scored got, short of want,
// where the try before scored lastGot at lastQ (lastQ == q before the
// first raise): holdStep first, then as many steps as the last raise's
// gain per step says are needed, within holdMinStep and holdMaxStep.
// False when q is 100 already, or when that gain puts want past 100.
func nextQuality(lastQ int, lastGot float64, q int, got, want float64) (int, bool) {
	if q >= 100 {
		return 0, false
	}
	step := holdStep
	if q > lastQ {
		perStep := (got - lastGot) / float64(q-lastQ)
		if perStep <= 0 || float64(q)+(want-got)/perStep > 100 {
			return 0, false
		}
		step = min(max(int(math.Ceil((want-got)/perStep)), holdMinStep), holdMaxStep)
	}
	return min(100, q+step), true
}
