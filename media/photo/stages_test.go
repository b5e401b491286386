package photo

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// Each render reports decode, resize and encode once, and with WebP the
// time spent holding it to the JPEG's SSIM ("ssim") too; together they
// account for the render's time.
func TestRenderReportsItsStages(t *testing.T) {
	data := readTestdata(t, "photo.jpg")
	f, err := Sniff(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, encs := range [][]Encoding{nil, {EncodingWebP}} {
		stages := []string{"decode", "resize", "encode"}
		if encs != nil {
			stages = append(stages, "ssim")
		}
		seen := map[string]time.Duration{}
		calls := 0
		start := time.Now()
		_, err = Render(context.Background(), bytes.NewReader(data), f, Options{
			Encodings: encs,
			Stage:     func(stage string, d time.Duration) { seen[stage] += d; calls++ },
		})
		total := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		var sum time.Duration
		for _, stage := range stages {
			if seen[stage] <= 0 {
				t.Errorf("%v: stage %s not reported: %v", encs, stage, seen)
			}
			sum += seen[stage]
		}
		if calls != len(stages) || sum > total {
			t.Fatalf("%v: %d calls, stages sum to %s of a %s render", encs, calls, sum, total)
		}
	}
}
