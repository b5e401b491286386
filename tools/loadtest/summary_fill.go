package main

import "time"

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
	if cfg.Scenario == "nearby" || cfg.StepsOn == "nearby" {
		s.Load.Seed = cfg.Seed
	}
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

func generatorUse(cpu0, cpu1 float64, dur time.Duration) GeneratorCPU {
	d := cpu1 - cpu0
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

func (r *recorder) foregroundCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(r.all.m.Requests)
}
