package main

import "testing"

func step(rate, servedPerS, p95 float64) StepResult {
	s := StepResult{TargetRate: rate, Requests: int(servedPerS) + 1, ServedPerS: servedPerS, P95Ms: p95}
	s.Held = s.holds()
	return s
}

func TestHeldStepRule(t *testing.T) {
	cases := []struct {
		name         string
		steps        []StepResult
		held, failed int
	}{
		{"all hold", []StepResult{step(5, 5, 10), step(10, 10, 20), step(20, 19.9, 50)}, 2, -1},
		{"p95 at the limit fails", []StepResult{step(5, 5, 10), step(10, 10, 1000)}, 0, 1},
		{"p95 just under holds", []StepResult{step(5, 5, 999.9)}, 0, -1},
		{"89% served fails", []StepResult{step(5, 5, 10), step(10, 8.9, 10)}, 0, 1},
		{"exactly 90% served holds", []StepResult{step(10, 9, 10)}, 0, -1},
		{"highest held, not the last of a run", []StepResult{step(5, 5, 10), step(10, 5, 10), step(20, 20, 10), step(40, 10, 3000)}, 2, 1},
		{"none hold", []StepResult{step(5, 1, 10), step(10, 2, 10)}, -1, 0},
		{"empty step does not hold", []StepResult{{TargetRate: 5}}, -1, 0},
		{"no steps", nil, -1, -1},
		{"refined: highest held rate, lowest failed rate", []StepResult{step(10, 10, 10), step(20, 20, 10), step(40, 40, 2000), step(28, 28, 10), step(34, 20, 10)}, 3, 4},
	}
	for _, c := range cases {
		held, failed := heldStep(c.steps)
		if held != c.held || failed != c.failed {
			t.Errorf("%s: heldStep = %d, %d; want %d, %d", c.name, held, failed, c.held, c.failed)
		}
	}
}
