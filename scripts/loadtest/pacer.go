package main

import (
	"math"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// StepPacer is a vegeta.Pacer for stepped load: Start hits/s for one Step,
// then Start*Factor, Start*Factor², … for Steps steps, then it stops.
// vegeta's PacerFunc cannot report Rate(), which reports need, hence a type.
//
// Hit k (1-based) is due when the integral of the rate reaches k-½, so every
// step holds exactly rate·Step hits and none lands on a step boundary, where
// it would be attributed to the wrong step.
type StepPacer struct {
	Start  float64       // rate of the first step, hits per second
	Factor float64       // rate multiplier between steps (2 doubles)
	Step   time.Duration // length of each step
	Steps  int           // number of steps
}

var _ vegeta.Pacer = StepPacer{}

// newStepPacer builds the doubling series start, 2·start, … not above max.
func newStepPacer(start, max float64, step time.Duration) StepPacer {
	p := StepPacer{Start: start, Factor: 2, Step: step}
	for r := start; r <= max*(1+1e-9) && start > 0; r *= 2 {
		p.Steps++
	}
	return p
}

// RateAt is the target rate of step i.
func (p StepPacer) RateAt(i int) float64 { return p.Start * math.Pow(p.Factor, float64(i)) }

// Duration is the length of the whole stepped attack.
func (p StepPacer) Duration() time.Duration { return time.Duration(p.Steps) * p.Step }

// StepAt is the index of the step running at elapsed (Steps when done).
func (p StepPacer) StepAt(elapsed time.Duration) int {
	if elapsed < 0 || p.Step <= 0 {
		return 0
	}
	return min(int(elapsed/p.Step), p.Steps)
}

// Rate implements vegeta.Pacer: the rate of the step running at elapsed.
func (p StepPacer) Rate(elapsed time.Duration) float64 {
	i := p.StepAt(elapsed)
	if i >= p.Steps {
		return 0
	}
	return p.RateAt(i)
}

// hits is the integral of the rate from 0 to elapsed.
func (p StepPacer) hits(elapsed time.Duration) float64 {
	var h float64
	for i := range p.Steps {
		start := time.Duration(i) * p.Step
		if elapsed <= start {
			break
		}
		h += p.RateAt(i) * min(elapsed-start, p.Step).Seconds()
	}
	return h
}

// Pace implements vegeta.Pacer.
func (p StepPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if p.Start <= 0 || p.Factor <= 0 || p.Step <= 0 || elapsed >= p.Duration() {
		return 0, true
	}
	due := float64(hits) + 0.5 // integral value at which hit number hits+1 is due
	if p.hits(elapsed) >= due {
		return 0, false // running behind: fire now
	}
	var h float64
	for i := range p.Steps {
		r := p.RateAt(i)
		inStep := r * p.Step.Seconds()
		if h+inStep >= due {
			at := time.Duration(i)*p.Step + time.Duration((due-h)/r*float64(time.Second))
			return max(at-elapsed, 0), false
		}
		h += inStep
	}
	return 0, true // every hit of every step has been sent
}

// constantPacer wraps vegeta.ConstantPacer for fractional rates: Freq is an
// int, so 2.5/s is expressed as 250 hits per 100 s.
func constantPacer(rate float64) vegeta.Pacer {
	if rate == math.Trunc(rate) {
		return vegeta.ConstantPacer{Freq: int(rate), Per: time.Second}
	}
	return vegeta.ConstantPacer{Freq: int(math.Round(rate * 100)), Per: 100 * time.Second}
}
