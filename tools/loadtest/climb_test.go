package main

import (
	"slices"
	"testing"
	"time"
)

// simulate runs a pacer on a virtual clock the way the engine does, from
// now until it stops or until is reached, and returns the send times.
func simulate(t *testing.T, p *climbPacer, now, until time.Duration, hits *uint64) []time.Duration {
	t.Helper()
	var at []time.Duration
	for now < until {
		wait, stop := p.Pace(now, *hits)
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
		*hits++
		if *hits > 1e6 {
			t.Fatal("runaway pacer")
		}
	}
	return at
}

func TestDoublingSeries(t *testing.T) {
	if got := doublingSeries(5, 640); !slices.Equal(got, []float64{5, 10, 20, 40, 80, 160, 320, 640}) {
		t.Errorf("5 to 640: %v", got)
	}
	if got := doublingSeries(5, 39); !slices.Equal(got, []float64{5, 10, 20}) {
		t.Errorf("5 to 39: %v", got)
	}
	if got := doublingSeries(0, 100); len(got) != 0 {
		t.Errorf("start 0: %v", got)
	}
}

func TestClimbPacerHitsPerStepAndEdges(t *testing.T) {
	p := &climbPacer{}
	const step = 2 * time.Second
	for i, r := range doublingSeries(5, 40) {
		p.plan(time.Duration(i)*step, step, r)
	}
	p.finish()
	var hits uint64
	sent := simulate(t, p, 0, time.Hour, &hits)
	perStep := make([]int, 4)
	for _, at := range sent {
		i := int(at / step)
		if i >= 4 {
			t.Fatalf("hit at %v after the last step", at)
		}
		if at%step == 0 && at > 0 {
			t.Errorf("hit exactly on a step edge at %v", at)
		}
		perStep[i]++
	}
	if !slices.Equal(perStep, []int{10, 20, 40, 80}) {
		t.Errorf("hits per step %v, want 10 20 40 80", perStep)
	}
	if gap := sent[2] - sent[1]; gap != 200*time.Millisecond {
		t.Errorf("gap in step 0 = %v, want 200ms", gap)
	}
	if gap := sent[len(sent)-1] - sent[len(sent)-2]; gap != 25*time.Millisecond {
		t.Errorf("gap in the last step = %v, want 25ms", gap)
	}
	if r := p.Rate(5 * time.Second); r != 20 {
		t.Errorf("Rate at 5 s = %v, want 20", r)
	}
}

// A failed step is cut short and a refining step planned later takes the
// hit numbers from where the load got to.
func TestClimbPacerTruncatesAndRefines(t *testing.T) {
	p := &climbPacer{}
	for i, r := range []float64{10, 20, 40} {
		p.plan(time.Duration(i)*time.Second, time.Second, r)
	}
	var hits uint64
	// The climber judges step 1 at 2.5 s, in the middle of step 2.
	simulate(t, p, 0, 2500*time.Millisecond, &hits)
	if hits != 10+20+20 {
		t.Fatalf("%d hits by 2.5 s, want 50", hits)
	}
	p.truncate(2)
	if wait, stop := p.Pace(2600*time.Millisecond, hits); stop || wait != climbPoll {
		t.Fatalf("past the plan: wait %v stop %v, want a poll", wait, stop)
	}
	start := p.nextStart(4 * time.Second)
	p.plan(start, time.Second, 14)
	p.finish()
	sent := simulate(t, p, 2600*time.Millisecond, time.Hour, &hits)
	if len(sent) != 14 || sent[0] <= 4*time.Second || sent[13] >= 5*time.Second {
		t.Fatalf("refining step: %d hits from %v to %v, want 14 within 4–5 s", len(sent), sent[0], sent[len(sent)-1])
	}
	if _, stop := p.Pace(6*time.Second, hits); !stop {
		t.Fatal("a finished pacer must stop once its plan is sent")
	}
}

func TestClimbPacerCatchesUp(t *testing.T) {
	p := &climbPacer{}
	p.plan(0, time.Second, 10)
	p.plan(0, time.Second, 20)
	// 1.5 s in with nothing sent: 10 + 10 hits are overdue, fire now.
	if wait, stop := p.Pace(1500*time.Millisecond, 0); wait != 0 || stop {
		t.Fatalf("behind schedule: wait %v stop %v, want 0 false", wait, stop)
	}
	if _, stop := (&climbPacer{done: true}).Pace(0, 0); !stop {
		t.Fatal("an empty finished pacer must stop")
	}
}

func TestConstantPacerFractional(t *testing.T) {
	p := constantPacer(2.5)
	if r := p.Rate(0); r < 2.4999 || r > 2.5001 {
		t.Fatalf("rate = %v, want 2.5", r)
	}
}
