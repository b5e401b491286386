package main

import (
	"fmt"
	"slices"
	"strings"
)

// roundsMarkdown is the rounds' table: each size of each round, then the
// largest size over the one before it, the ratio taken within each round
// and given as the median over the rounds with its range. Beside the
// server's p95 stands PostgreSQL's own time a request: where the two grow
// alike, what grows with the data is the database's work.
func roundsMarkdown(rounds []ScaleRound) string {
	if len(rounds) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n| round | guides | nearby p95 ms, cache on / off | viewport p95 ms, on / off | PostgreSQL ms a request, on / off |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, r := range rounds {
		fmt.Fprintf(&b, "| %d | %s | %.1f / %.1f | %.1f / %.1f | %s / %s |\n", r.Round, r.Label,
			r.On.Nearby, r.Off.Nearby, r.On.Viewport, r.Off.Viewport, pgMs(r.On), pgMs(r.Off))
	}
	sizes := roundSizes(rounds)
	if len(sizes) < 2 {
		return b.String() + coldRoundsMarkdown(rounds, "", "")
	}
	a, z := sizes[len(sizes)-2], sizes[len(sizes)-1]
	cols := []func(ScaleRound) float64{
		func(r ScaleRound) float64 { return r.On.Nearby }, func(r ScaleRound) float64 { return r.Off.Nearby },
		func(r ScaleRound) float64 { return r.On.Viewport }, func(r ScaleRound) float64 { return r.Off.Viewport },
		func(r ScaleRound) float64 { return r.On.PGPerRequest() }, func(r ScaleRound) float64 { return r.Off.PGPerRequest() },
	}
	q := make([]string, len(cols))
	for i, f := range cols {
		q[i] = ratioRange(withinRounds(rounds, a, z, f))
	}
	fmt.Fprintf(&b, "| %s ÷ %s, median of rounds (range) | | %s / %s | %s / %s | %s / %s |\n", z, a, q[0], q[1], q[2], q[3], q[4], q[5])
	b.WriteString(coldRoundsMarkdown(rounds, a, z))
	return b.String()
}

// coldRoundsMarkdown is the rounds' cold steps (-scale-rounds-cold), with
// the same within-round ratios of the sizes a and z (none when a is "":
// one size); "" when none ran.
func coldRoundsMarkdown(rounds []ScaleRound, a, z string) string {
	if !slices.ContainsFunc(rounds, func(r ScaleRound) bool { return r.Cold != nil }) {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n| round | guides | cold: nearby p95 ms | viewport p95 ms | PostgreSQL ms a request |\n|---|---|---|---|---|\n")
	cold := func(r ScaleRound) RoundStep {
		if r.Cold == nil {
			return RoundStep{PGCalls: -1}
		}
		return *r.Cold
	}
	for _, r := range rounds {
		c := cold(r)
		fmt.Fprintf(&b, "| %d | %s | %.1f | %.1f | %s |\n", r.Round, r.Label, c.Nearby, c.Viewport, pgMs(c))
	}
	if a == "" {
		return b.String()
	}
	q := func(f func(RoundStep) float64) string {
		return ratioRange(withinRounds(rounds, a, z, func(r ScaleRound) float64 { return f(cold(r)) }))
	}
	fmt.Fprintf(&b, "| %s ÷ %s, median of rounds (range) | | %s | %s | %s |\n", z, a,
		q(func(s RoundStep) float64 { return s.Nearby }), q(func(s RoundStep) float64 { return s.Viewport }), q(RoundStep.PGPerRequest))
	return b.String()
}

func pgMs(s RoundStep) string {
	if s.PGCalls < 0 || s.Requests == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", s.PGPerRequest())
}

// roundSizes are the labels in the order of the first round (the order
// the sizes were given, smallest first).
func roundSizes(rounds []ScaleRound) []string {
	var out []string
	for _, r := range rounds {
		if r.Round == rounds[0].Round && !slices.Contains(out, r.Label) {
			out = append(out, r.Label)
		}
	}
	return out
}

// withinRounds is f(z) ÷ f(a) for each round that measured both sizes.
func withinRounds(rounds []ScaleRound, a, z string, f func(ScaleRound) float64) []float64 {
	by := map[int]map[string]float64{}
	for _, r := range rounds {
		if by[r.Round] == nil {
			by[r.Round] = map[string]float64{}
		}
		by[r.Round][r.Label] = f(r)
	}
	var out []float64
	for _, m := range by {
		if x, y := m[z], m[a]; x > 0 && y > 0 {
			out = append(out, x/y)
		}
	}
	return out
}

// ratioRange is "1.06× (0.98–1.12)", the median (the middle one, or the
// mean of the two middle ones) and the range; "–" with none.
func ratioRange(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f)", med, s[0], s[len(s)-1])
}
