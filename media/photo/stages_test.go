package photo

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// Each render reports decode, resize and encode once, and together they
// account for the render's time.
func TestRenderReportsItsStages(t *testing.T) {
	data := readTestdata(t, "photo.jpg")
	f, err := Sniff(data)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]time.Duration{}
	calls := 0
	start := time.Now()
	_, err = Render(context.Background(), bytes.NewReader(data), f, Options{
		Stage: func(stage string, d time.Duration) { seen[stage] += d; calls++ },
	})
	total := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	for _, stage := range []string{"decode", "resize", "encode"} {
		if seen[stage] <= 0 {
			t.Errorf("stage %s not reported: %v", stage, seen)
		}
		sum += seen[stage]
	}
	if calls != 3 || sum > total {
		t.Fatalf("%d calls, stages sum to %s of a %s render", calls, sum, total)
	}
}
