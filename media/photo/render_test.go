package photo

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/disintegration/imaging"
	"github.com/guidepost/guidepost/media/photo/internal/iccprofile"
)

func renderFile(t *testing.T, name string) Result {
	t.Helper()
	data := readTestdata(t, name)
	f, err := Sniff(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	res, err := Render(context.Background(), bytes.NewReader(data), f, Options{})
	if err != nil {
		t.Fatalf("%s: Render: %v", name, err)
	}
	return res
}

func decodeJPEG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("derivative does not decode: %v", err)
	}
	return img
}

func TestRenderEveryFormat(t *testing.T) {
	for _, name := range []string{"photo.jpg", "photo.png", "photo.webp", "photo.heic", "polyglot.jpg"} {
		res := renderFile(t, name)
		for _, d := range []Derivative{res.Web, res.Thumb, res.Marker} {
			img := decodeJPEG(t, d.JPEG)
			if img.Bounds().Dx() != d.Width || img.Bounds().Dy() != d.Height {
				t.Errorf("%s: decoded %v, Result says %d×%d", name, img.Bounds(), d.Width, d.Height)
			}
		}
		// Small originals are never upscaled.
		if res.Web.Width != res.Width || res.Thumb.Width != res.Width || res.Thumb.Height != res.Height {
			t.Errorf("%s: %d×%d → web %d×%d, thumb %d×%d", name, res.Width, res.Height,
				res.Web.Width, res.Web.Height, res.Thumb.Width, res.Thumb.Height)
		}
		// The sky is blue at the top, the hills green at the bottom.
		img := decodeJPEG(t, res.Web.JPEG)
		if name != "polyglot.jpg" {
			assertNear(t, name+" sky", img.At(320, 10), rgb(0x4a, 0x90, 0xd9), 16) // lossy WebP drifts most
			assertNear(t, name+" hill", img.At(320, 460), rgb(0x2e, 0x7d, 0x32), 16)
			// The marker is the middle 480×480, scaled to 256: sky and hill too.
			marker := decodeJPEG(t, res.Marker.JPEG)
			assertNear(t, name+" marker sky", marker.At(128, 5), rgb(0x4a, 0x90, 0xd9), 16)
			assertNear(t, name+" marker hill", marker.At(128, 250), rgb(0x2e, 0x7d, 0x32), 16)
		}
		if side := min(MarkerSize, res.Width, res.Height); res.Marker.Width != side || res.Marker.Height != side {
			t.Errorf("%s: marker %d×%d", name, res.Marker.Width, res.Marker.Height)
		}
		if th, err := base64.StdEncoding.DecodeString(res.ThumbHash); err != nil || len(th) < 5 || len(th) > 25 {
			t.Errorf("%s: ThumbHash %q", name, res.ThumbHash)
		}
	}
}

func TestRenderPolyglotCarriesNoHTML(t *testing.T) {
	res := renderFile(t, "polyglot.jpg")
	for _, d := range [][]byte{res.Web.JPEG, res.Thumb.JPEG, res.Marker.JPEG} {
		if bytes.Contains(d, []byte("<")) && bytes.Contains(d, []byte("script")) {
			t.Error("HTML survived into a derivative")
		}
		if bytes.Contains(d, []byte{0xFF, 0xFE}) { // COM segment
			t.Error("derivative has a comment segment")
		}
	}
}

// Orientation files show a red square in the top-left corner of the
// displayed image and blue elsewhere; every other corner proves the square
// is not there, which tells the 8 orientations apart (4 corners × swapped
// or not).
func TestRenderOrientation(t *testing.T) {
	files := []string{"orient-6.webp", "orient-6.png",
		"heic-exif6.heic", "heic-irot1.heic", "heic-imir1.heic", "heic-irot1-imir0.heic"}
	for o := 1; o <= 8; o++ {
		files = append(files, "orient-"+string(rune('0'+o))+".jpg")
	}
	for _, name := range files {
		res := renderFile(t, name)
		for kind, d := range map[string]Derivative{"web": res.Web, "thumb": res.Thumb} {
			checkMarker(t, name+" "+kind, decodeJPEG(t, d.JPEG), 240, 160)
		}
	}
}

func checkMarker(t *testing.T, what string, img image.Image, w, h int) {
	t.Helper()
	b := img.Bounds()
	if b.Dx() != w || b.Dy() != h {
		t.Errorf("%s: size %v; want %d×%d", what, b.Size(), w, h)
		return
	}
	dx, dy := w/12, h/8 // inside the square (a quarter of the height)
	red, blue := rgb(255, 0, 0), rgb(0, 0, 255)
	assertNear(t, what+" top-left", img.At(dx, dy), red, 40)
	assertNear(t, what+" top-right", img.At(w-1-dx, dy), blue, 40)
	assertNear(t, what+" bottom-left", img.At(dx, h-1-dy), blue, 40)
	assertNear(t, what+" bottom-right", img.At(w-1-dx, h-1-dy), blue, 40)
}

// A large photo goes through the real resize path: the marker must survive
// orientation at 2048 and at 1080, for every orientation.
func TestRenderOrientationResized(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 8 large JPEGs")
	}
	const dw, dh = 2100, 1400
	display := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for i := 0; i < len(display.Pix); i += 4 {
		x, y := i/4%dw, i/4/dw
		copy(display.Pix[i:], []byte{0, 0, 255, 255})
		if x < 525 && y < 525 {
			copy(display.Pix[i:], []byte{255, 0, 0, 255})
		}
	}
	orientations := []int{1, 2, 3, 4, 5, 6, 7, 8}
	if raceEnabled {
		orientations = []int{2, 6, 7} // a mirror, a turn, both with swapped axes
	}
	for _, o := range orientations {
		stored := inverseOrient(display, o)
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, stored, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		data := withExifOrientation(buf.Bytes(), o)
		res, err := Render(context.Background(), bytes.NewReader(data), JPEG, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkMarker(t, "web "+string(rune('0'+o)), decodeJPEG(t, res.Web.JPEG), 2048, 1365)
		checkMarker(t, "thumb "+string(rune('0'+o)), decodeJPEG(t, res.Thumb.JPEG), 1080, 720)
		checkCentredSquare(t, "marker "+string(rune('0'+o)), decodeJPEG(t, res.Marker.JPEG))
	}
}

// checkCentredSquare checks the marker of the 2100×1400 picture above: the
// middle 1400×1400 (x from 350) holds the red square's last 175 columns
// (to x 525), so the marker's left 32 of 256 columns are red down to row
// 96, and the rest is blue whatever the orientation.
func checkCentredSquare(t *testing.T, what string, img image.Image) {
	t.Helper()
	if b := img.Bounds(); b.Dx() != MarkerSize || b.Dy() != MarkerSize {
		t.Errorf("%s: size %v; want %d×%d", what, b.Size(), MarkerSize, MarkerSize)
		return
	}
	red, blue := rgb(255, 0, 0), rgb(0, 0, 255)
	assertNear(t, what+" left, top", img.At(12, 40), red, 40)
	assertNear(t, what+" just right of the red", img.At(48, 40), blue, 40)
	assertNear(t, what+" left, below the red", img.At(12, 140), blue, 40)
	assertNear(t, what+" right, top", img.At(243, 12), blue, 40)
	assertNear(t, what+" bottom-right", img.At(243, 243), blue, 40)
}

// inverseOrient returns the stored image that orientation o displays as img.
func inverseOrient(img *image.RGBA, o int) image.Image {
	m := orientationMatrix(o)
	w, h := img.Rect.Dx(), img.Rect.Dy()
	sw, sh := w, h
	if swapsAxes(o) {
		sw, sh = h, w
	}
	out := image.NewRGBA(image.Rect(0, 0, sw, sh))
	for y := range sh {
		for x := range sw {
			// centred doubled coordinates keep everything integral
			cx, cy := 2*x+1-sw, 2*y+1-sh
			dx, dy := m[0]*cx+m[1]*cy, m[2]*cx+m[3]*cy
			copy(out.Pix[out.PixOffset(x, y):][:4], img.Pix[img.PixOffset((dx+w-1)/2, (dy+h-1)/2):])
		}
	}
	return out
}

// withExifOrientation inserts an APP1 Exif segment after SOI.
func withExifOrientation(jpg []byte, o int) []byte {
	payload := append([]byte("Exif\x00\x00"), exifBlock(binary.BigEndian, uint16(o))...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, jpg[:2]...)
	out = append(append(out, seg...), payload...)
	return append(out, jpg[2:]...)
}

func TestRenderNeverUpscalesAndFits(t *testing.T) {
	for _, tc := range []struct{ w, h, ww, wh, tw, th, m int }{
		{2100, 1400, 2048, 1365, 1080, 720, 256},
		{700, 2100, 683, 2048, 360, 1080, 256},
		{1500, 900, 1500, 900, 1080, 648, 256},
		{900, 600, 900, 600, 900, 600, 256},
		{640, 480, 640, 480, 640, 480, 256},
		{300, 200, 300, 200, 300, 200, 200},
		{90, 1000, 90, 1000, 90, 1000, 90},
	} {
		img := image.NewGray(image.Rect(0, 0, tc.w, tc.h))
		var buf bytes.Buffer
		jpeg.Encode(&buf, img, nil)
		res, err := Render(context.Background(), &buf, JPEG, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := [8]int{res.Web.Width, res.Web.Height, res.Thumb.Width, res.Thumb.Height, res.Marker.Width, res.Marker.Height, res.Width, res.Height}
		if want := [8]int{tc.ww, tc.wh, tc.tw, tc.th, tc.m, tc.m, tc.w, tc.h}; got != want {
			t.Errorf("%d×%d: got %v; want %v", tc.w, tc.h, got, want)
		}
	}
}

// Derivatives must carry no metadata at all: no APPn segment of any kind.
func TestRenderStripsMetadata(t *testing.T) {
	orig := readTestdata(t, "gps.jpg")
	if !bytes.Contains(orig, []byte("TestCam")) || len(appSegments(orig)) == 0 {
		t.Fatal("gps.jpg has lost its EXIF: regenerate testdata")
	}
	for _, name := range []string{"gps.jpg", "p3.jpg", "heic-exif6.heic", "orient-6.jpg"} {
		res := renderFile(t, name)
		for _, d := range [][]byte{res.Web.JPEG, res.Thumb.JPEG, res.Marker.JPEG} {
			if apps := appSegments(d); len(apps) > 0 {
				t.Errorf("%s: derivative has APPn segments %x", name, apps)
			}
			for _, s := range []string{"Exif", "GPS", "TestCam", "Secret Person", "ICC_PROFILE"} {
				if bytes.Contains(d, []byte(s)) {
					t.Errorf("%s: derivative contains %q", name, s)
				}
			}
		}
	}
}

// appSegments lists the APPn markers before the first scan.
func appSegments(jpg []byte) []byte {
	var out []byte
	for i := 2; i+4 <= len(jpg) && jpg[i] == 0xFF; {
		m := jpg[i+1]
		if m == 0xDA {
			break
		}
		if m >= 0xE0 && m <= 0xEF {
			out = append(out, m)
		}
		i += 2 + int(binary.BigEndian.Uint16(jpg[i+2:]))
	}
	return out
}

// The P3 files hold P3 (255,0,0), (200,100,50) and (0,255,0) in 64-pixel
// patches. Shown untagged those values look washed out; converted they must
// match sRGB values computed here from the primaries, independently of the
// matrix in gamut.go.
func TestRenderConvertsDisplayP3(t *testing.T) {
	m := iccprofile.MatMul(iccprofile.Inv(iccprofile.RGBToXYZ(iccprofile.SRGB, iccprofile.D65)),
		iccprofile.RGBToXYZ(iccprofile.P3, iccprofile.D65))
	p3 := [][3]float64{{255, 0, 0}, {200, 100, 50}, {0, 255, 0}}
	for _, name := range []string{"p3.jpg", "p3.png", "p3-prof.heic", "p3-nclx.heic"} {
		img := decodeJPEG(t, renderFile(t, name).Web.JPEG)
		for i, in := range p3 {
			var lin [3]float64
			for c := range 3 {
				lin[c] = srgbToLinear(in[c] / 255)
			}
			out := iccprofile.Mul(m, lin)
			want := rgb(linearToSRGB8(out[0]), linearToSRGB8(out[1]), linearToSRGB8(out[2]))
			got := img.At(32+64*i, 32)
			assertNear(t, name, got, want, 5)
			if i == 1 && near(got, rgb(200, 100, 50), 8) {
				t.Errorf("%s: mid-tone %v left unconverted", name, got)
			}
			if i == 1 { // the marker is the middle 64×64: this patch, converted too
				assertNear(t, name+" marker", decodeJPEG(t, renderFile(t, name).Marker.JPEG).At(32, 32), want, 5)
			}
		}
	}
	// A profile that is not P3 leaves the values alone.
	img := decodeJPEG(t, renderFile(t, "srgb-profile.jpg").Web.JPEG)
	assertNear(t, "srgb-profile.jpg", img.At(96, 32), rgb(200, 100, 50), 4)
}

func srgbToLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

func linearToSRGB8(l float64) uint8 {
	l = min(max(l, 0), 1)
	c := l * 12.92
	if l > 0.0031308 {
		c = 1.055*math.Pow(l, 1/2.4) - 0.055
	}
	return uint8(math.Round(c * 255))
}

func TestIsDisplayP3(t *testing.T) {
	for _, tc := range []struct {
		name string
		icc  []byte
		want bool
	}{
		{"Display P3", iccprofile.DisplayP3(), true},
		{"P3 colorants, other name", iccprofile.RGB("Phone Camera RGB", iccprofile.P3, iccprofile.D65), true},
		{"sRGB", iccprofile.RGB("sRGB", iccprofile.SRGB, iccprofile.D65), false},
		{"not ICC", []byte("hello"), false},
	} {
		if got := isDisplayP3(tc.icc); got != tc.want {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
	p3 := iccprofile.DisplayP3()
	for i := range p3 { // no panic on any truncation
		isDisplayP3(p3[:i])
	}
}

// The WebAssembly decoder garbles images under 128 px wide: refused there,
// rendered by native libheif.
func TestRenderNarrowHEIC(t *testing.T) {
	data := readTestdata(t, "heic-64px.heic")
	res, err := Render(context.Background(), bytes.NewReader(data), HEIC, Options{})
	if HEICDecoder() == "wasm" {
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("wasm: %v; want ErrUnsupported", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "native", decodeJPEG(t, res.Web.JPEG).At(32, 32), rgb(255, 0, 0), 8)
}

func TestRenderAlphaOnWhite(t *testing.T) {
	img := decodeJPEG(t, renderFile(t, "alpha.png").Web.JPEG)
	assertNear(t, "transparent corner", img.At(1, 1), rgb(255, 255, 255), 6)
	assertNear(t, "opaque centre", img.At(32, 32), rgb(0x15, 0x65, 0xc0), 10)
}

func TestRenderErrors(t *testing.T) {
	ctx := context.Background()
	for name, data := range bombs(t) {
		f, _ := Sniff(data)
		if _, err := Render(ctx, bytes.NewReader(data), f, Options{}); !errors.Is(err, ErrTooManyPixels) {
			t.Errorf("%s: %v; want ErrTooManyPixels", name, err)
		}
	}
	corrupt := readTestdata(t, "corrupt.jpg")
	if _, err := Render(ctx, bytes.NewReader(corrupt), JPEG, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt.jpg: %v; want ErrCorrupt", err)
	}
	heic := readTestdata(t, "photo.heic")
	if _, err := Render(ctx, bytes.NewReader(heic[:len(heic)-200]), HEIC, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated HEIC: %v; want ErrCorrupt", err)
	}
	if _, err := Render(ctx, bytes.NewReader(readTestdata(t, "photo.jpg")), PNG, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("JPEG rendered as PNG: %v; want ErrCorrupt", err)
	}
	if _, err := Render(ctx, bytes.NewReader(corrupt), JPEG, Options{MaxBytes: 1000}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxBytes: %v; want ErrTooLarge", err)
	}
	if _, err := Render(ctx, bytes.NewReader(corrupt), Unknown, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Unknown format: %v; want ErrUnsupported", err)
	}
}

// cancelAtEOF cancels the context once the photo has been read entirely, so
// the cancellation lands between the read and the decode.
type cancelAtEOF struct {
	r      io.Reader
	cancel context.CancelFunc
}

func (c cancelAtEOF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.cancel()
	}
	return n, err
}

func TestRenderCancellation(t *testing.T) {
	data := readTestdata(t, "photo.jpg")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Render(ctx, bytes.NewReader(data), JPEG, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Render(ctx, cancelAtEOF{bytes.NewReader(data), cancel}, JPEG, Options{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after reading: %v", err)
	}
	// Nothing was decoded: 640×480 would allocate ~460 KB of YCbCr.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<10 {
		t.Errorf("cancelled render allocated %d bytes: it decoded", alloc)
	}
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }

func near(got color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := got.RGBA()
	d := func(a uint32, b uint8) int { return max(int(a>>8)-int(b), int(b)-int(a>>8)) }
	return d(r, want.R) <= tol && d(g, want.G) <= tol && d(b, want.B) <= tol
}

func assertNear(t *testing.T, what string, got color.Color, want color.RGBA, tol int) {
	t.Helper()
	if !near(got, want, tol) {
		r, g, b, _ := got.RGBA()
		t.Errorf("%s: got (%d,%d,%d); want (%d,%d,%d) ±%d", what, r>>8, g>>8, b>>8, want.R, want.G, want.B, tol)
	}
}

// preshrink's 2×2 averaging keeps the picture: a resize through it stays
// within a few levels of a direct one, for each subsampling.
func TestPreshrink(t *testing.T) {
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422} {
		src := image.NewYCbCr(image.Rect(0, 0, 1000, 666), ratio)
		// In-gamut waves: where RGB clips, averaging before or after the
		// clip legitimately differs.
		wave := func(i, stride int, k, amp float64) uint8 {
			x, y := float64(i%stride), float64(i/stride)
			return uint8(128 + amp*math.Sin(x/(7*k))*math.Cos(y/(5*k)))
		}
		for i := range src.Y {
			src.Y[i] = wave(i, src.YStride, 1, 60)
		}
		for i := range src.Cb {
			src.Cb[i], src.Cr[i] = wave(i, src.CStride, 2, 30), wave(i+3, src.CStride, 3, 30)
		}
		small := preshrink(src, 300, 200).(*image.YCbCr)
		if small.Rect.Dx() != 500 || small.Rect.Dy() != 333 || small.SubsampleRatio != ratio {
			t.Fatalf("%v: preshrink to %v %v", ratio, small.Rect, small.SubsampleRatio)
		}
		direct := imaging.Resize(src, 300, 200, imaging.CatmullRom)
		via := imaging.Resize(small, 300, 200, imaging.CatmullRom)
		worst := 0
		for i := range direct.Pix {
			worst = max(worst, int(direct.Pix[i])-int(via.Pix[i]), int(via.Pix[i])-int(direct.Pix[i]))
		}
		if worst > 12 {
			t.Errorf("%v: differs from a direct resize by up to %d levels", ratio, worst)
		}
	}
	if img := preshrink(image.NewYCbCr(image.Rect(0, 0, 400, 300), image.YCbCrSubsampleRatio420), 240, 160); img.Bounds().Dx() != 400 {
		t.Error("shrank an image less than twice the target")
	}
}

// The plane resizer matches imaging's Catmull-Rom on the same (preshrunk)
// YCbCr input — imaging converts to RGB first and repeats chroma samples, so
// they differ at chroma edges only — for each subsampling, odd sizes, and
// both directions.
func TestResizeWebMatchesImaging(t *testing.T) {
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio444,
		image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio440} {
		src := image.NewYCbCr(image.Rect(0, 0, 733, 517), ratio)
		for i := range src.Y {
			x, y := float64(i%src.YStride), float64(i/src.YStride)
			src.Y[i] = uint8(128 + 60*math.Sin(x/9)*math.Cos(y/6))
		}
		for i := range src.Cb {
			x, y := float64(i%src.CStride), float64(i/src.CStride)
			src.Cb[i], src.Cr[i] = uint8(128+30*math.Sin(y/17)), uint8(128+30*math.Cos(x/13))
		}
		for _, size := range [][2]int{{301, 211}, {733, 517}, {1000, 705}} {
			_, planes := resizeWeb(src, size[0], size[1])
			got := toNRGBA(planes)
			want := imaging.Resize(preshrink(src, size[0], size[1]), size[0], size[1], imaging.CatmullRom)
			var sum, worst int
			for i := range want.Pix {
				d := max(int(got.Pix[i])-int(want.Pix[i]), int(want.Pix[i])-int(got.Pix[i]))
				sum, worst = sum+d, max(worst, d)
			}
			if mean := float64(sum) / float64(len(want.Pix)); mean > 1.5 || worst > 24 {
				t.Errorf("%v → %v: mean difference %.2f, worst %d", ratio, size, mean, worst)
			}
		}
	}
}
