package photo

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"testing"

	gavif "github.com/gen2brain/avif"
	gwebp "github.com/gen2brain/webp"
	xwebp "golang.org/x/image/webp"
)

// BenchmarkEncoders12MP compares the encoders a derivative could go
// through, at each width, in CPU milliseconds, bytes and SSIM against the
// unencoded render. Run it on one core (taskset -c 1) with -benchtime=3x.
func BenchmarkEncoders12MP(b *testing.B) {
	name := "photo-12mp.jpg"
	if f := os.Getenv("BENCHFILE"); f != "" {
		name = f
	}
	data := benchFile(b, name)
	full, err := decode(data, JPEG)
	if err != nil {
		b.Fatal(err)
	}
	only := os.Getenv("ENCODERS")
	for _, width := range []int{2048, 1080, 540, 256} {
		w, h := fit(full.Bounds().Dx(), full.Bounds().Dy(), width)
		_, planes := resizeWeb(full, w, h)
		ref := finish(toNRGBA(planes), false)
		for _, e := range []struct {
			name   string
			q      int
			enc    func(q int) ([]byte, error)
			decode func([]byte) (image.Image, error)
		}{
			{"jpeg-turbo", 75, func(q int) ([]byte, error) { return encodeYCbCr(planes, q) }, func(d []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(d)) }},
			{"webp-cgo", 75, func(q int) ([]byte, error) {
				s := webpLossy
				s.quality = q
				if planes.SubsampleRatio != image.YCbCrSubsampleRatio420 {
					return encodeWebPRGBA(ref, s)
				}
				return encodeWebPPlanes(planes, s)
			}, func(d []byte) (image.Image, error) { return xwebp.Decode(bytes.NewReader(d)) }},
			{"webp-wasm", 75, func(q int) ([]byte, error) {
				var buf bytes.Buffer
				err := gwebp.Encode(&buf, ref, gwebp.Options{Quality: q, Method: 4})
				return buf.Bytes(), err
			}, func(d []byte) (image.Image, error) { return xwebp.Decode(bytes.NewReader(d)) }},
			{"avif-wasm", 55, func(q int) ([]byte, error) {
				var buf bytes.Buffer
				err := gavif.Encode(&buf, ref, gavif.Options{Quality: q, Speed: 9, ChromaSubsampling: image.YCbCrSubsampleRatio420})
				return buf.Bytes(), err
			}, func(d []byte) (image.Image, error) { return gavif.Decode(bytes.NewReader(d)) }},
		} {
			if only != "" && !bytes.Contains([]byte(only), []byte(e.name)) {
				continue
			}
			for _, q := range benchQualities(e.q) {
				b.Run(fmt.Sprintf("%s-q%d-%d", e.name, q, width), func(b *testing.B) {
					var out []byte
					cpu := cpuTime()
					for b.Loop() {
						if out, err = e.enc(q); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
					b.ReportMetric(float64(len(out))/1000, "KB")
					img, err := e.decode(out)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(ssim(ref, img), "ssim")
				})
			}
		}
	}
}

func benchQualities(q int) []int {
	if s := os.Getenv("QUALITIES"); s != "" {
		var out []int
		for _, f := range bytes.Fields([]byte(s)) {
			var v int
			fmt.Sscan(string(f), &v)
			out = append(out, v)
		}
		return out
	}
	return []int{q}
}

// BenchmarkFormats12MP is the whole render of the 12 MP benchmark photo
// for each MEDIA_FORMATS setting, in CPU seconds (one core: taskset -c 1),
// with the bytes of each format at each width (the marker is 256).
func BenchmarkFormats12MP(b *testing.B) {
	data := benchFile(b, "photo-12mp.jpg")
	info, err := Probe(bytes.NewReader(data), JPEG, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, set := range [][]Encoding{nil, {EncodingWebP}, {EncodingWebP, EncodingAVIF}} {
		name := "jpeg"
		for _, e := range set {
			name += "," + string(e)
		}
		b.Run(name, func(b *testing.B) {
			var res Result
			cpu := cpuTime()
			for b.Loop() {
				if res, err = RenderProbed(context.Background(), data, info, Options{Encodings: set}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			for _, e := range append([]Encoding{EncodingJPEG}, set...) {
				n := 0
				for _, d := range []Derivative{res.Marker, res.Small, res.Thumb, res.Web} {
					n += len(d.File(e))
					b.ReportMetric(float64(len(d.File(e)))/1000, fmt.Sprintf("%s-%d-KB", e, d.Width))
				}
				b.ReportMetric(float64(n)/1000, string(e)+"-KB")
			}
		})
	}
}
