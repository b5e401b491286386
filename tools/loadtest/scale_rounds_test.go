package main

import (
	"strings"
	"testing"
)

func TestRoundsAlternateTheOrderOfTheSizes(t *testing.T) {
	dbs := []scaleDB{{Label: "100k"}, {Label: "1m"}, {Label: "10m"}}
	labels := func(r int) string {
		var s []string
		for _, d := range roundOrder(dbs, r) {
			s = append(s, d.Label)
		}
		return strings.Join(s, ",")
	}
	if got := labels(1); got != "100k,1m,10m" {
		t.Errorf("round 1: %s", got)
	}
	if got := labels(2); got != "10m,1m,100k" {
		t.Errorf("round 2: %s", got)
	}
	if got := labels(3); got != "100k,1m,10m" {
		t.Errorf("round 3: %s", got)
	}
	if dbs[0].Label != "100k" {
		t.Error("roundOrder reversed its argument")
	}
}

// The ratio is taken within a round, then the median over rounds: a
// round that is slow at both sizes does not move it.
func TestRoundsTableTakesRatiosWithinRounds(t *testing.T) {
	step := func(nearby, pgMs float64, calls int64) RoundStep {
		return RoundStep{Nearby: nearby, Viewport: 2 * nearby, Requests: 100, PGCalls: calls, PGExecMs: pgMs}
	}
	rounds := []ScaleRound{
		{Round: 1, Label: "1m", On: step(4, 50, 10), Off: step(5, 200, 100)},
		{Round: 1, Label: "10m", On: step(4.4, 60, 10), Off: step(6, 260, 100)},
		{Round: 2, Label: "10m", On: step(12, 60, 10), Off: step(12, 240, 100)},
		{Round: 2, Label: "1m", On: step(10, 50, 10), Off: step(10, 200, 100)},
		{Round: 3, Label: "1m", On: step(5, 50, -1), Off: step(5, 200, 100)},
		{Round: 3, Label: "10m", On: step(5.5, 70, -1), Off: step(5.5, 220, 100)},
	}
	md := roundsMarkdown(rounds)
	last := md[strings.LastIndex(strings.TrimSuffix(md, "\n"), "\n")+1:]
	for _, want := range []string{
		"10m ÷ 1m, median of rounds",
		"| 1.10× (1.10–1.20) / 1.20× (1.10–1.20) |", // nearby on: 1.1, 1.2, 1.1; off: 1.2, 1.2, 1.1
		"| 1.20× (1.20–1.20) / 1.20× (1.10–1.30) |", // PostgreSQL: round 3 on unknown; off 1.3, 1.2, 1.1
	} {
		if !strings.Contains(last, want) {
			t.Errorf("summary line lacks %q:\n%s", want, last)
		}
	}
	if !strings.Contains(md, "| 3 | 1m | 5.0 / 5.0 | 10.0 / 10.0 | – / 2.00 |") {
		t.Errorf("round 3's row should show the unknown PostgreSQL figure as –:\n%s", md)
	}
	if roundsMarkdown(nil) != "" {
		t.Error("no rounds should add nothing to the table")
	}
}

// Cold steps get a table of their own, its ratios taken within rounds as
// the warm ones are; rounds without them add nothing.
func TestRoundsTableShowsColdStepsWithinRounds(t *testing.T) {
	step := func(viewport, pgMs float64) *RoundStep {
		return &RoundStep{Nearby: 3, Viewport: viewport, Requests: 100, PGCalls: 10, PGExecMs: pgMs}
	}
	rounds := []ScaleRound{
		{Round: 1, Label: "1m", Cold: step(10, 100)},
		{Round: 1, Label: "10m", Cold: step(12, 130)},
		{Round: 2, Label: "10m", Cold: step(30, 120)},
		{Round: 2, Label: "1m", Cold: step(20, 100)},
		{Round: 3, Label: "1m", Cold: step(10, 100)},
		{Round: 3, Label: "10m", Cold: step(14, 110)},
	}
	md := roundsMarkdown(rounds)
	for _, want := range []string{
		"| 2 | 10m | 3.0 | 30.0 | 1.20 |",
		"| 10m ÷ 1m, median of rounds (range) | | 1.00× (1.00–1.00) | 1.40× (1.20–1.50) | 1.20× (1.10–1.30) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("cold table lacks %q:\n%s", want, md)
		}
	}
	if one := roundsMarkdown(rounds[:1]); !strings.Contains(one, "| 1 | 1m | 3.0 | 10.0 | 1.00 |") || strings.Contains(one, "÷") {
		t.Errorf("one size: its cold steps, without ratios:\n%s", one)
	}
	for i := range rounds {
		rounds[i].Cold = nil
	}
	if strings.Contains(roundsMarkdown(rounds), "cold") {
		t.Error("rounds without cold steps should have no cold table")
	}
}
