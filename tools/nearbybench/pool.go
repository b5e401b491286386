package main

import (
	"slices"
	"time"
)

// pool is one summary of several storms on the same target: its
// percentiles are over every tap of them all, and its rates are what they
// recorded over the time they took together. A storm lasts well under a
// second, so one storm's p95 and rate swing with the scheduler of a
// 2-core machine; a run pooled over several sees the same work with the
// same weight, storm after storm.
func pool(storms []likeSummary) likeSummary {
	out := likeSummary{Answers: map[int]int{}, Storms: len(storms)}
	for _, s := range storms {
		out.Users = s.Users
		out.Taps += s.Taps
		out.Seconds += s.Seconds
		out.LikeCount += s.LikeCount
		for code, n := range s.Answers {
			out.Answers[code] += n
		}
		out.ServerCPU = pick(out.ServerCPU >= 0 && s.ServerCPU >= 0, out.ServerCPU+s.ServerCPU, -1)
		out.GeneratorCPU += s.GeneratorCPU
		out.HostCPUs = s.HostCPUs
		out.HostCPU = pick(out.HostCPU >= 0 && s.HostCPU >= 0, out.HostCPU+s.HostCPU, -1)
		out.DBCPU = pick(out.DBCPU >= 0 && s.DBCPU >= 0, out.DBCPU+s.DBCPU, -1)
		out.lats = append(out.lats, s.lats...)
	}
	slices.Sort(out.lats)
	if out.Seconds > 0 {
		out.TapsPerS = float64(out.Taps) / out.Seconds
		out.RecordedPerS = float64(out.LikeCount) / out.Seconds
	}
	out.P50ms, out.P95ms, out.P99ms = percentile(out.lats, 0.5), percentile(out.lats, 0.95), percentile(out.lats, 0.99)
	return out
}

// percentile of sorted latencies, in milliseconds.
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[min(len(sorted)-1, int(p*float64(len(sorted))))].Microseconds()) / 1000
}
