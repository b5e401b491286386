package main

import (
	"testing"
	"time"
)

// simulate runs a pacer on a virtual clock the way the engine does and
// returns the send time of every hit.
func simulate(t *testing.T, p StepPacer) []time.Duration {
	t.Helper()
	var at []time.Duration
	var now time.Duration
	for hits := uint64(0); ; {
		wait, stop := p.Pace(now, hits)
		if stop {
			return at
		}
		if wait < 0 {
			t.Fatalf("negative wait %v at %v", wait, now)
		}
		if wait > 0 {
			now += wait
			continue
		}
		at = append(at, now)
		hits++
		if hits > 1e6 {
			t.Fatal("runaway pacer")
		}
	}
}

func TestStepPacerSeries(t *testing.T) {
	p := newStepPacer(5, 640, 30*time.Second)
	want := []float64{5, 10, 20, 40, 80, 160, 320, 640}
	if p.Steps != len(want) {
		t.Fatalf("steps = %d, want %d", p.Steps, len(want))
	}
	for i, r := range want {
		if got := p.RateAt(i); got != r {
			t.Errorf("RateAt(%d) = %v, want %v", i, got, r)
		}
		mid := time.Duration(i)*p.Step + p.Step/2
		if got := p.Rate(mid); got != r {
			t.Errorf("Rate(%v) = %v, want %v", mid, got, r)
		}
	}
	if got := p.Rate(p.Duration()); got != 0 {
		t.Errorf("Rate after the end = %v, want 0", got)
	}
	if p.Duration() != 240*time.Second {
		t.Errorf("duration = %v", p.Duration())
	}
	if q := newStepPacer(5, 39, time.Second); q.Steps != 3 {
		t.Errorf("max 39 gives %d steps, want 3 (5, 10, 20)", q.Steps)
	}
}

func TestStepPacerHitsPerStepAndBoundaries(t *testing.T) {
	p := StepPacer{Start: 5, Factor: 2, Step: 2 * time.Second, Steps: 4}
	hits := simulate(t, p)
	perStep := make([]int, p.Steps)
	for _, at := range hits {
		i := p.StepAt(at)
		if i >= p.Steps {
			t.Fatalf("hit at %v after the last step", at)
		}
		if at%p.Step == 0 && at > 0 {
			t.Errorf("hit exactly on a step boundary at %v", at)
		}
		perStep[i]++
	}
	for i, n := range perStep {
		if want := int(p.RateAt(i) * p.Step.Seconds()); n != want {
			t.Errorf("step %d: %d hits, want %d", i, n, want)
		}
	}
	// Inside a step hits are evenly spaced at 1/rate.
	if gap := hits[2] - hits[1]; gap != 200*time.Millisecond {
		t.Errorf("gap in step 0 = %v, want 200ms", gap)
	}
	last := hits[len(hits)-1]
	if gap := last - hits[len(hits)-2]; gap != 25*time.Millisecond {
		t.Errorf("gap in step 3 = %v, want 25ms", gap)
	}
}

func TestStepPacerCatchesUp(t *testing.T) {
	p := StepPacer{Start: 10, Factor: 2, Step: time.Second, Steps: 2}
	// 1.5 s in with nothing sent: 10 + 10 = 20 hits are overdue, fire now.
	if wait, stop := p.Pace(1500*time.Millisecond, 0); wait != 0 || stop {
		t.Fatalf("behind schedule: wait %v stop %v, want 0 false", wait, stop)
	}
	if _, stop := p.Pace(2*time.Second, 5); !stop {
		t.Fatal("pacer must stop at the end of the last step")
	}
	if _, stop := (StepPacer{}).Pace(0, 0); !stop {
		t.Fatal("zero pacer must stop")
	}
}

func TestConstantPacerFractional(t *testing.T) {
	p := constantPacer(2.5)
	if r := p.Rate(0); r < 2.4999 || r > 2.5001 {
		t.Fatalf("rate = %v, want 2.5", r)
	}
}
