package main

import (
	"time"
)

// fill writes the recorder's aggregates into s. Load kinds' rates are over
// dur, the load phase; background kinds (polls during the drain, read-backs)
// over the whole run so far.
func (r *recorder) fill(s *Summary, dur time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.Kinds = map[string]KindStats{}
	for name, k := range r.kinds {
		if k.background {
			if s.Background == nil {
				s.Background = map[string]KindStats{}
			}
			if k.m.Requests > 0 {
				s.Background[name] = kindStats(k, time.Since(r.t0))
			}
		} else {
			s.Kinds[name] = kindStats(k, dur)
		}
	}
	s.Totals = kindStats(&r.all, dur)
	s.Failures = Failures{ByStatus: map[string]int{}, ByKind: map[string]int{}}
	for code, n := range r.byStatus {
		if code < 200 || code >= 300 {
			s.Failures.ByStatus[statusKey(code)] = n
		}
		if rejected(code) {
			s.Failures.Rejected += n
		}
	}
	for fk, n := range r.byFail {
		s.Failures.ByKind[string(fk)] = n
	}
	s.ErrorSamples = append([]string(nil), r.errs...)
	s.Timeline = r.timelineLocked()
	s.Samples = append([]Sample(nil), r.samples...)
	for _, b := range r.timeline {
		s.Failures.Dropped += b.dropped
	}
}

func (r *recorder) timelineLocked() []Bucket {
	out := make([]Bucket, len(r.timeline))
	for i := range r.timeline {
		b := &r.timeline[i]
		out[i] = Bucket{T: i, Arrivals: b.arrivals, Dropped: b.dropped, Requests: b.requests, OK: b.ok,
			Errors: b.errors, Rejected: b.rejected, Accepted: b.accepted, Ready: b.ready, Likes: b.likes,
			P50Ms: ms(b.hist.quantile(0.5)), P95Ms: ms(b.hist.quantile(0.95)), P99Ms: ms(b.hist.quantile(0.99))}
	}
	return out
}

// windowSummary closes window i; served per second is over its length, or
// over secs when the window is open-ended.
func (r *recorder) windowSummary(i int, secs float64) WindowSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.windows[i]
	w.m.Close()
	ws := WindowSummary{Seconds: secs, Arrivals: w.arrivals, Requests: int(w.m.Requests), Served: w.ok,
		Rejected: w.rejected, Failures: map[string]int{}, Latency: latencyOf(w.m.Latencies)}
	for fk, n := range w.fails {
		ws.Failures[string(fk)] = n
	}
	if secs > 0 {
		ws.ServedPerS = round(float64(w.ok)/secs, 3)
	}
	return ws
}

// stepResult evaluates window i as a step of rate target and length step.
// Requests of the step still in flight when it is evaluated early have run
// longer than the grace period; if they exceed 5 % of the step, its p95 is
// at least that long, so the step is reported as over the limit.
func (r *recorder) stepResult(i int, target float64, step time.Duration, graceExceedsP95 bool) StepResult {
	ws := r.windowSummary(i, step.Seconds())
	sr := StepResult{Index: i, TargetRate: target, Arrivals: ws.Arrivals, Requests: ws.Requests,
		Served: ws.Served, ServedPerS: ws.ServedPerS, P50Ms: ws.Latency.P50, P95Ms: ws.Latency.P95,
		P99Ms: ws.Latency.P99, Failures: ws.Requests - ws.Served}
	r.mu.Lock()
	sr.Dropped = r.windows[i].dropped
	r.mu.Unlock()
	outstanding := sr.Arrivals - sr.Dropped - sr.Requests
	if graceExceedsP95 && float64(outstanding) > 0.05*float64(max(sr.Arrivals, 1)) {
		sr.P95Ms = max(sr.P95Ms, float64(heldP95.Milliseconds()))
	}
	sr.Held = sr.holds()
	return sr
}

// setupInfo summarises the setup phase.
func setupInfo(fx *fixture, hot []*hotGuide, srec *recorder, took time.Duration) SetupInfo {
	srec.mu.Lock()
	defer srec.mu.Unlock()
	si := SetupInfo{Users: len(fx.users), GuidesSeeded: fx.seeded, GuidesFound: fx.discovered,
		GuidePool: len(fx.pool), HotGuides: len(hot), PhotoBytes: photoSizes(fx.photos),
		Seconds: round(took.Seconds(), 2)}
	for _, k := range srec.kinds {
		si.Requests += int(k.m.Requests)
		si.FailedRequests += int(k.m.Requests) - k.ok
	}
	return si
}
