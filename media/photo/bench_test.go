package photo

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disintegration/imaging"
)

// Made by scripts/gen-testdata.sh --bench (git-ignored).
const benchdata = "../../testdata/bench"

func benchFile(b testing.TB, name string) []byte {
	data, err := os.ReadFile(filepath.Join(benchdata, name))
	if err != nil {
		b.Skipf("%v: run scripts/gen-testdata.sh --bench", err)
	}
	return data
}

func benchRender(b *testing.B, name string, f Format) {
	data := benchFile(b, name)
	b.SetBytes(int64(len(data)))
	peak := watchHeap()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := Render(context.Background(), bytes.NewReader(data), f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
}

// Run with -cpu 1 for CPU-seconds per photo: imaging's resize is the only
// stage that uses more than one core.
func BenchmarkRender12MP(b *testing.B)     { benchRender(b, "photo-12mp.jpg", JPEG) }
func BenchmarkRender48MP(b *testing.B)     { benchRender(b, "photo-48mp.jpg", JPEG) }
func BenchmarkRenderHEIC12MP(b *testing.B) { benchRender(b, "photo-12mp.heic", HEIC) }

// BenchmarkNaive12MP is the pipeline this package replaces (decode with
// imaging's auto-orientation, full-size q85 re-encode, Lanczos thumbnail from
// the original), for a same-run comparison with BenchmarkRender12MP.
func BenchmarkNaive12MP(b *testing.B) {
	data := benchFile(b, "photo-12mp.jpg")
	peak := watchHeap()
	cpu := cpuTime()
	for b.Loop() {
		img, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
		if err != nil {
			b.Fatal(err)
		}
		imaging.Encode(io.Discard, img, imaging.JPEG, imaging.JPEGQuality(85))
		thumb := imaging.Fit(img, ThumbMax, ThumbMax, imaging.Lanczos)
		imaging.Encode(io.Discard, thumb, imaging.JPEG, imaging.JPEGQuality(70))
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
}

// BenchmarkDecodeHEIC12MP compares the HEIC backends (see decode.go): run it
// with and without -tags nodynamic.
func BenchmarkDecodeHEIC12MP(b *testing.B) {
	data := benchFile(b, "photo-12mp.heic")
	decode(data, HEIC) // the WebAssembly module compiles once per process
	b.Logf("HEIC decoder: %s", HEICDecoder())
	peak := watchHeap()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := decode(data, HEIC); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
}

// BenchmarkStages12MP splits a 12 MP JPEG render into its stages, each
// reported in CPU milliseconds.
func BenchmarkStages12MP(b *testing.B) {
	data := benchFile(b, "photo-12mp.jpg")
	full, err := decode(data, JPEG)
	if err != nil {
		b.Fatal(err)
	}
	w, h := fit(full.Bounds().Dx(), full.Bounds().Dy(), WebMax)
	_, planes := resizeWeb(full, w, h)
	web := finish(toNRGBA(planes), false)
	tw, th := fit(w, h, ThumbMax)
	thumb := finish(imaging.Resize(web, tw, th, imaging.CatmullRom), false)
	hw, hh := fit(tw, th, hashMax)
	ctx := context.Background()
	stage := func(name string, fn func()) {
		b.Run(name, func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				fn()
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
	stage("probe", func() { Probe(bytes.NewReader(data), JPEG, 0) })
	stage("decode", func() { decode(data, JPEG) })
	for _, f := range []struct {
		name string
		f    imaging.ResampleFilter
	}{{"Lanczos", imaging.Lanczos}, {"CatmullRom", imaging.CatmullRom}, {"Linear", imaging.Linear}, {"Box", imaging.Box}} {
		stage("resize-2048-"+f.name, func() { imaging.Resize(full, w, h, f.f) })
	}
	stage("resize-2048-planes (used)", func() { resizeWeb(full, w, h) })
	stage("finish-p3", func() { finish(imaging.Clone(web), true) })
	stage("encode-web-q85", func() { encode(ctx, web, WebQuality) })
	stage("resize-thumb-1080-RGBA", func() { imaging.Resize(web, tw, th, imaging.CatmullRom) })
	stage("resize-thumb-1080-planes (used)", func() { toNRGBA(resizeYCbCr(planes, tw, th)) })
	stage("encode-thumb-q70", func() { encode(ctx, thumb, ThumbQuality) })
	stage("thumbhash", func() { thumbHash(finish(imaging.Resize(thumb, hw, hh, imaging.Box), false)) })
}

// watchHeap samples the live heap every millisecond until the returned
// function is called, which reports the peak. GC is forced first so that the
// figure is what one render holds, not the previous render's garbage.
func watchHeap() (peak func() uint64) {
	runtime.GC()
	var max atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > max.Load() {
				max.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return max.Load()
	}
}
