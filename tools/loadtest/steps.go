package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// stepRun is a stepped load that climbs to the server's ceiling: the rate
// doubles from -step-start while steps hold (up to -step-max, a hard cap);
// at the first failing step the doubling stops, the server gets a moment
// to drain, and up to -step-refine steps try the geometric middle between
// the highest rate held and the lowest failed. The ceiling is the highest
// rate held. With -step-continue every doubling step runs, judged or not.
type stepRun struct {
	cfg   *Config
	rec   *recorder
	eng   *engine
	pacer *climbPacer

	mu     sync.Mutex
	plans  []stepPlan // by pacer step index
	halted bool       // the doubling stopped at a failure
}

type stepPlan struct {
	window  int // recorder window
	rate    float64
	refine  bool
	verdict int // judged while running: 1 held, -1 failed, 0 not judged
}

const (
	stepGrace   = time.Second     // a step is judged this long after it ends
	stepCoolMax = 3 * time.Second // bound on waiting for a failed step's requests before a refining step
	stepQuiet   = time.Second     // then the server idles this long
	stepLead    = 200 * time.Millisecond
)

// refineAllowance is the time one refining step may take.
func refineAllowance(stepLen time.Duration) time.Duration {
	return stepCoolMax + stepQuiet + stepLead + stepLen + stepGrace
}

// newStepRun plans the doubling series, whole steps within the run's
// duration, and registers their windows.
func newStepRun(cfg *Config, rec *recorder, eng *engine) *stepRun {
	r := &stepRun{cfg: cfg, rec: rec, eng: eng, pacer: &climbPacer{}}
	for i, rate := range doublingSeries(cfg.StepStart, cfg.StepMax) {
		if time.Duration(i+1)*cfg.StepLen > cfg.Duration {
			break
		}
		r.add(time.Duration(i)*cfg.StepLen, rate, false)
	}
	return r
}

// add registers a step's window, then plans it, so that no hit of it can
// arrive before its window exists.
func (r *stepRun) add(start time.Duration, rate float64, refine bool) int {
	start = r.pacer.nextStart(start)
	w := r.rec.addWindow(fmt.Sprintf("step %g/s", rate), start, start+r.cfg.StepLen)
	i := r.pacer.plan(start, r.cfg.StepLen, rate)
	r.mu.Lock()
	r.plans = append(r.plans, stepPlan{window: w, rate: rate, refine: refine})
	r.mu.Unlock()
	return i
}

// start runs the climber until the returned stop, which waits for it.
func (r *stepRun) start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer r.pacer.finish()
		if !r.cfg.StepContinue {
			r.climb(ctx)
		}
	}()
	return func() {
		cancel()
		<-stopped
	}
}

// climb judges the doubling steps as they end and refines after a failure.
func (r *stepRun) climb(ctx context.Context) {
	var held, failed float64
	series := len(r.plans)
	for i := range series {
		ok, alive := r.judge(ctx, i)
		if !alive {
			return
		}
		if ok {
			held = r.plans[i].rate
			continue
		}
		failed = r.plans[i].rate
		r.haltAfter(i)
		break
	}
	for range r.cfg.StepRefine {
		if failed == 0 {
			return
		}
		mid := math.Round(math.Sqrt(held * failed))
		if held == 0 {
			mid = math.Round(failed / 2)
		}
		if mid <= held || mid >= failed || !r.coolDown(ctx) {
			return
		}
		start := time.Since(r.rec.t0) + stepLead
		if start+r.cfg.StepLen+stepGrace > r.cfg.Duration {
			return // past the run's bound
		}
		r.cfg.Log.Info("refining", "held", held, "failed", failed, "trying", mid)
		ok, alive := r.judge(ctx, r.add(start, mid, true))
		if !alive {
			return
		}
		if ok {
			held = mid
		} else {
			failed = mid
		}
	}
}

// haltAfter ends the doubling after step i; the next step ran only while i
// was being judged, so it is dropped (its window is not reported).
func (r *stepRun) haltAfter(i int) {
	r.pacer.truncate(i + 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.halted = true
	r.plans = r.plans[:i+1]
	r.cfg.Log.Info("step failed: the doubling stops", "rate", r.plans[i].rate)
}

// judge waits for step i to end (plus the grace) and applies the held-step
// rule to what has come back; alive is false when ctx ended first.
func (r *stepRun) judge(ctx context.Context, i int) (held, alive bool) {
	s := r.pacer.step(i)
	if !sleepCtx(ctx, time.Until(r.rec.t0.Add(s.start+s.length+stepGrace))) {
		return false, false
	}
	r.mu.Lock()
	p := r.plans[i]
	r.mu.Unlock()
	sr := r.rec.stepResult(p.window, p.rate, s.length, true)
	r.cfg.Log.Info("step", "rate", sr.TargetRate, "served_per_s", round(sr.ServedPerS, 1), "p95_ms", sr.P95Ms, "held", sr.Held)
	r.mu.Lock()
	r.plans[i].verdict = pick(sr.Held, 1, -1)
	r.mu.Unlock()
	return sr.Held, true
}

// coolDown lets the requests of a failed step finish (bounded), then
// leaves the server idle a moment, so a refining step starts clean.
func (r *stepRun) coolDown(ctx context.Context) bool {
	deadline := time.Now().Add(stepCoolMax)
	for r.eng.inflight.Load() > 0 && time.Now().Before(deadline) {
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return false
		}
	}
	return sleepCtx(ctx, stepQuiet)
}

// summary is the stepped run's result, from everything that came back.
func (r *stepRun) summary() *StepsSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	ss := &StepsSummary{On: r.cfg.StepsOn, StepS: r.cfg.StepLen.Seconds(), StoppedEarly: r.halted, Refine: r.cfg.StepRefine,
		Rule: "held: p95 < 1 s and served ≥ 90 % of the target rate; the rate doubles while steps hold, then rates between the highest held and the lowest failed are tried; the ceiling is the highest held"}
	for _, p := range r.plans {
		sr := r.rec.stepResult(p.window, p.rate, r.cfg.StepLen, false)
		if sr.Arrivals == 0 {
			continue // never started: the run ended first
		}
		sr.Index, sr.Refine = len(ss.Steps), p.refine
		sr.Held = sr.Held && p.verdict != -1 // a step judged failed stays failed: the climb acted on it
		ss.Steps = append(ss.Steps, sr)
	}
	held, failed := heldStep(ss.Steps)
	ss.HeldIndex = held
	if held >= 0 {
		ss.HeldRate = ss.Steps[held].TargetRate
	}
	if failed >= 0 {
		ss.FirstFailedRate = ss.Steps[failed].TargetRate
	}
	ss.Capped = failed < 0 && held >= 0 // the ceiling is above every rate tried
	return ss
}

// Ceiling is the highest rate held, "≥ N" when no step failed.
func (ss *StepsSummary) Ceiling() string {
	if ss.Capped {
		return fmt.Sprintf("≥ %g", ss.HeldRate)
	}
	return fmt.Sprint(ss.HeldRate)
}

// Rates lists the steps run, in order: "20 40 … 2560✗ 1810✓".
func (ss *StepsSummary) Rates() string {
	parts := make([]string, len(ss.Steps))
	for i, s := range ss.Steps {
		parts[i] = fmt.Sprintf("%g%s", s.TargetRate, pick(s.Held, "✓", "✗"))
	}
	return strings.Join(parts, " ")
}
