package worker_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/media/photo/hostile"
	"github.com/guidepost/guidepost/worker"
)

// The test binary is its own render child, as the guidepost binary is.
const childEnv = "GUIDEPOST_TEST_RENDER_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if os.Getenv("GUIDEPOST_TEST_ENV_PROBE") != "" || os.Getenv("JWT_SECRET") != "" {
			os.Exit(3) // a variable the parent did not mean to pass
		}
		os.Exit(worker.RenderChild(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

func childRenderer(cpu, wall time.Duration) *worker.ChildRenderer {
	return &worker.ChildRenderer{Command: []string{os.Args[0]}, Env: []string{childEnv + "=1"}, CPU: cpu, Wall: wall}
}

func probed(t *testing.T, data []byte) photo.Info {
	t.Helper()
	info, err := photo.ProbeBytes(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// A render in a child process gives what a render in process gives, its
// stages included, and the photo's own errors keep their kind.
func TestChildRendererRendersLikeInProcess(t *testing.T) {
	// The limits are not under test here: a wall clock well above the
	// default keeps a machine busy with other test packages from killing
	// a child that has used only a few seconds of CPU.
	r := childRenderer(0, 3*time.Minute)
	for _, name := range []string{"photo.jpg", "photo.png", "photo.webp", "photo.heic", "orient-6.jpg", "p3.jpg"} {
		data := readPhoto(t, name)
		info := probed(t, data)
		var stages []string
		got, err := r.Render(context.Background(), data, info, photo.Options{Stage: func(s string, _ time.Duration) { stages = append(stages, s) }})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := media.InProcess{}.Render(context.Background(), data, info, photo.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Web.JPEG, want.Web.JPEG) || !bytes.Equal(got.Thumb.JPEG, want.Thumb.JPEG) ||
			got.ThumbHash != want.ThumbHash || got.Width != want.Width || len(stages) != 3 {
			t.Errorf("%s: child %dx%d %q, in process %dx%d %q, stages %v", name, got.Width, got.Height, got.ThumbHash, want.Width, want.Height, want.ThumbHash, stages)
		}
	}
	corrupt := readPhoto(t, "corrupt.jpg")
	if _, err := r.Render(context.Background(), corrupt, probed(t, corrupt), photo.Options{}); !errors.Is(err, photo.ErrCorrupt) {
		t.Errorf("corrupt.jpg: %v; want ErrCorrupt", err)
	}
}

// A decode that runs past the CPU limit is killed and fails as too
// complex; the render returns only after the child is gone. The scan bomb
// is made with few enough scans to pass Probe's own limit only because
// the test calls the renderer directly.
// The child sees none of the worker's secrets.
func TestChildRendererPassesNoSecrets(t *testing.T) {
	t.Setenv("JWT_SECRET", "do-not-leak")
	t.Setenv("GUIDEPOST_TEST_ENV_PROBE", "1")
	data := readPhoto(t, "photo.jpg")
	if _, err := childRenderer(0, 0).Render(context.Background(), data, probed(t, data), photo.Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestChildRendererKillsASlowDecode(t *testing.T) {
	data := hostile.ProgressiveJPEG(4000, 3000, 2000) // ~5 s of CPU in image/jpeg
	info := probedUnchecked(t, data)
	start := time.Now()
	_, err := childRenderer(time.Second, time.Minute).Render(context.Background(), data, info, photo.Options{})
	if !errors.Is(err, photo.ErrTooComplex) {
		t.Fatalf("got %v; want ErrTooComplex", err)
	}
	t.Logf("killed after %s", time.Since(start))
}

// When the task's ctx ends, the child is killed and Render returns ctx's
// error.
func TestChildRendererStopsWithItsContext(t *testing.T) {
	data := hostile.ProgressiveJPEG(4000, 3000, 2000)
	info := probedUnchecked(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := childRenderer(time.Minute, time.Minute).Render(ctx, data, info, photo.Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v; want the context's deadline", err)
	}
}

// A decode that needs more memory than its weight is stopped at that
// weight: the same 4:4:4 progressive frame, weighed as if it were a small
// baseline one, cannot allocate its coefficients.
func TestChildRendererHoldsTheRenderToItsWeight(t *testing.T) {
	if worker.RaceBuild {
		t.Skip("the race detector's shadow memory rules out a data-segment limit")
	}
	data := hostile.ProgressiveJPEG(6000, 4000, 0) // 24 MP: ~550 MiB to decode
	small := probed(t, bigBaseline(t, 64, 64))     // weighed at ~24 MiB
	_, err := childRenderer(time.Minute, time.Minute).Render(context.Background(), data, small, photo.Options{})
	if !errors.Is(err, photo.ErrTooComplex) && !errors.Is(err, photo.ErrCorrupt) {
		t.Fatalf("got %v; want it stopped", err)
	}
}

// probedUnchecked probes a scan bomb with its scans cut to what Probe
// allows, so the renderer gets a weight for it.
func probedUnchecked(t *testing.T, data []byte) photo.Info {
	return probed(t, hostile.ProgressiveJPEG(4000, 3000, 0))
}

func bigBaseline(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readPhoto(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "photos", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
