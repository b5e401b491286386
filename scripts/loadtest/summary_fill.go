package main

import (
	"context"
	"time"
)

func (s *Summary) loadModel(cfg *Config) string {
	switch {
	case cfg.Scenario == "steps":
		return "steps"
	case cfg.Rate > 0:
		return "open"
	default:
		return "closed"
	}
}

func (s *Summary) fillLoad(cfg *Config, actual time.Duration) {
	s.Load = LoadInfo{Model: s.loadModel(cfg), DurationS: cfg.Duration.Seconds(), ActualS: round(actual.Seconds(), 3)}
	switch s.Load.Model {
	case "open":
		s.Load.Rate = cfg.Rate
	case "closed":
		s.Load.VUs, s.Load.RampS, s.Load.ThinkS = cfg.VUs, cfg.Ramp.Seconds(), cfg.Think.Seconds()
	}
}

func (s *Summary) fillServer(smp *sampler, cpuLoad, cpuTotal float64, dur time.Duration) {
	smp.mu.Lock()
	defer smp.mu.Unlock()
	s.Queue = QueueSummary{Available: smp.hasQueue, MaxDepth: smp.maxDepth, Scrapes: smp.scrapes, Failed: smp.failures}
	if smp.hasQueue {
		s.Queue.MaxByState = smp.maxState
	}
	s.ServerCPU = ServerCPU{Available: smp.hasCPU}
	if smp.hasCPU {
		s.ServerCPU.LoadSeconds = round(cpuLoad, 3)
		s.ServerCPU.TotalSeconds = round(cpuTotal, 3)
		s.ServerCPU.LoadCores = round(cpuLoad/max(dur.Seconds(), 1e-9), 3)
	} else {
		s.Notes = append(s.Notes, "server CPU unknown: /metrics has no process_cpu_seconds_total")
	}
}

func generatorUse(cpu0 float64, dur time.Duration) GeneratorCPU {
	d := generatorCPU() - cpu0
	return GeneratorCPU{Seconds: round(d, 3), Cores: round(d/max(dur.Seconds(), 1e-9), 3)}
}

func (e *env) uploadSummary(s *Summary, dur time.Duration, drained bool, drainDur time.Duration) *UploadSummary {
	m := e.media
	m.mu.Lock()
	defer m.mu.Unlock()
	u := &UploadSummary{Attempted: uploadAttempts(s.Kinds), Accepted: m.accepted, Deduplicated: m.dedup,
		Ready: m.ready, Failed: m.failed, NotReady: len(m.pending), Drained: drained,
		DrainS: round(drainDur.Seconds(), 3), DrainBoundS: e.cfg.Drain.Seconds(),
		MaxQueueDepth: s.Queue.MaxDepth, PollIntervalMs: ms(e.cfg.PollEvery),
		ReadyLatencyS: quantiles(m.toReady)}
	u.AcceptedPerS = round(float64(m.accepted)/max(dur.Seconds(), 1e-9), 3)
	if m.ready > 0 && m.lastReady.After(m.firstAccept) {
		u.ReadyPerS = round(float64(m.ready)/m.lastReady.Sub(m.firstAccept).Seconds(), 3)
	}
	return u
}

func (m *mediaTracker) lastResolvedSince(t time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return max(m.lastResolved.Sub(t), 0)
}

// likeSummary totals the per-guide comparison.
func (e *env) likeSummary(rows []GuideLikes, readErr string) *LikeSummary {
	ls := &LikeSummary{Guides: rows, ReadError: readErr, Verified: readErr == ""}
	for _, r := range rows {
		ls.Expected += r.ExpectedMin - r.Baseline
		ls.Recorded += r.Actual - r.Baseline
		ls.Lost += r.Lost
		ls.Duplicated += r.Duplicated
	}
	return ls
}

func (ls *LikeSummary) finish(st *likeStats, dur time.Duration) {
	ls.Taps, ls.Accepted = int(st.taps.Load()), int(st.accepted.Load())
	ls.Rejected, ls.Unknown = int(st.rejected.Load()), int(st.unknown.Load())
	ls.Mismatched = int(st.mismatched.Load())
	ls.AcceptedPerS = round(float64(ls.Accepted)/max(dur.Seconds(), 1e-9), 3)
}

// watchSteps evaluates each step one second after it ends and halts the
// pacer at the first failing step (unless -step-continue): doubling the rate
// of a drowning server only adds minutes of timeouts. The returned stop
// ends the watcher, waits for it and reports the index of the step at
// which it halted the load, or -1.
func watchSteps(ctx context.Context, cfg *Config, rec *recorder, steps *StepPacer, halt func()) (stop func() int) {
	if steps == nil || cfg.StepContinue {
		return func() int { return -1 }
	}
	ctx, cancel := context.WithCancel(ctx)
	haltedAt := -1
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if haltedAt = firstFailingStep(ctx, cfg, rec, steps); haltedAt >= 0 {
			halt()
		}
	}()
	return func() int {
		cancel()
		<-stopped
		return haltedAt
	}
}

// firstFailingStep waits for each step but the last to end and returns the
// index of the first one that failed before ctx ended, or -1.
func firstFailingStep(ctx context.Context, cfg *Config, rec *recorder, steps *StepPacer) int {
	const grace = time.Second
	for i := range steps.Steps - 1 { // the last step ends the run anyway
		end := rec.t0.Add(time.Duration(i+1)*steps.Step + grace)
		if !sleepCtx(ctx, time.Until(end)) {
			return -1
		}
		sr := rec.stepResult(i, steps.RateAt(i), steps.Step, true)
		cfg.Log.Info("step", "rate", sr.TargetRate, "served_per_s", round(sr.ServedPerS, 1), "p95_ms", sr.P95Ms, "held", sr.Held)
		if !sr.Held {
			cfg.Log.Info("step failed: stopping the stepped load", "rate", sr.TargetRate)
			return i
		}
	}
	return -1
}

func stepsSummary(cfg *Config, rec *recorder, p StepPacer, haltedAt int) *StepsSummary {
	ss := &StepsSummary{On: cfg.StepsOn, StepS: p.Step.Seconds(), StoppedEarly: haltedAt >= 0,
		Rule: "held = highest step with p95 < 1 s and served ≥ 90 % of the target rate"}
	for i := range p.Steps {
		sr := rec.stepResult(i, p.RateAt(i), p.Step, false)
		if sr.Arrivals == 0 {
			break // stopped before this step
		}
		ss.Steps = append(ss.Steps, sr)
	}
	held, failed := heldStep(ss.Steps)
	if haltedAt >= 0 && haltedAt < len(ss.Steps) {
		// The load stopped at the step the watcher saw fail, so that step is
		// the first failure even if late answers make it look held now, and
		// the steps after it only ran for the watcher's grace period.
		ss.Steps = ss.Steps[:haltedAt+1]
		ss.Steps[haltedAt].Held = false
		if held, failed = heldStep(ss.Steps[:haltedAt]); failed < 0 {
			failed = haltedAt
		}
	}
	ss.HeldIndex = held
	if held >= 0 {
		ss.HeldRate = ss.Steps[held].TargetRate
	}
	if failed >= 0 {
		ss.FirstFailedRate = ss.Steps[failed].TargetRate
	}
	return ss
}

func (r *recorder) foregroundCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(r.all.m.Requests)
}
