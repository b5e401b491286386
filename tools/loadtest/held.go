package main

import "time"

// The held-step rule from the field notes: a step is held when its p95 stays
// under one second and at least 90 % of its target rate was served.
const (
	heldP95         = time.Second
	heldServedShare = 0.9
)

// StepResult is one step of a stepped run.
type StepResult struct {
	Index      int     `json:"index"`
	TargetRate float64 `json:"target_rate"`
	Arrivals   int     `json:"arrivals"`          // hits the pacer scheduled in this step
	Dropped    int     `json:"dropped,omitempty"` // arrivals the generator could not start (in-flight cap)
	Requests   int     `json:"requests"`          // requests that completed (any outcome)
	Served     int     `json:"served"`            // 2xx answers to requests started in this step
	ServedPerS float64 `json:"served_per_s"`
	P50Ms      float64 `json:"p50_ms"`
	P95Ms      float64 `json:"p95_ms"`
	P99Ms      float64 `json:"p99_ms"`
	Failures   int     `json:"failures"`
	Held       bool    `json:"held"`
	Refine     bool    `json:"refine,omitempty"` // tried between the highest held and the lowest failed rate
}

// holds applies the rule to one step.
func (s StepResult) holds() bool {
	return s.Requests > 0 &&
		s.P95Ms < float64(heldP95.Milliseconds()) &&
		s.ServedPerS >= heldServedShare*s.TargetRate
}

// heldStep returns the index of the step held (Held) at the highest rate, or -1,
// and of the step failed at the lowest rate, or -1. It is the highest held
// rate, not the last of an unbroken run: a server that warms up and holds
// 40/s after failing 20/s does hold 40/s; firstFailed shows such a dip.
func heldStep(steps []StepResult) (held, firstFailed int) {
	held, firstFailed = -1, -1
	for i, s := range steps {
		switch {
		case s.Held && (held < 0 || s.TargetRate > steps[held].TargetRate):
			held = i
		case !s.Held && (firstFailed < 0 || s.TargetRate < steps[firstFailed].TargetRate):
			firstFailed = i
		}
	}
	return held, firstFailed
}
