package photo

// A photo rich in fine detail (grain, foliage, gravel) is where WebP and
// AVIF lose most to a JPEG of the same width: the JPEG's 8×8 transform at
// quality 70–85 keeps texture that VP8 and AV1 smooth away at the
// qualities that suit a smooth photo. On the grainy 12 MP benchmark photo,
// a WebP at the smooth photos' quality is 0.004–0.025 under the JPEG's
// SSIM at every width but 2048.
//
// The JPEG encoded just before says how much detail there is, for free:
// its bits per pixel. A smooth photo's JPEG takes 0.25–0.45 bits a pixel
// at these qualities (every test photo); the grainy benchmark photo's takes
// 0.8–1.4. Between the two, grainBits picks the grain qualities
// (qualities.webpGrain, avifGrain). The render then measures each file
// and encodes it again when it is still short (ssimHold): the grain
// qualities spare that re-encode on the grainy photos that bits per
// pixel do tell apart.
const grainBits = 0.6

// jpegOverhead is what a libjpeg-turbo JPEG spends on headers and
// tables whatever its pixels (about 620 bytes), so that a small marker's
// bits per pixel count its pixels, not its headers.
const jpegOverhead = 700

// Grainy tells whether a w×h derivative whose JPEG took jpegBytes is rich
// in fine detail: its WebP and AVIF then get the grain qualities. Tools
// that make the same outputs with another library use it on their JPEG.
func Grainy(jpegBytes, w, h int) bool {
	return float64(jpegBytes-jpegOverhead)*8 >= grainBits*float64(w)*float64(h)
}
