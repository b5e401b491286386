package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// benchLine is one row of the table `make bench` ends with: what a
// scenario measured beside the floor measured in the same run, when the
// scenario has one.
type benchLine struct {
	Scenario string  `json:"scenario"`
	Figure   string  `json:"figure"`
	Floor    string  `json:"floor"`           // what was compared with, or where that floor is measured
	Ratio    float64 `json:"ratio,omitempty"` // figure ÷ floor; 0: no floor in this run
}

// floorsElsewhere names the tool that measures a floor the bench does
// not run, so the table says where to look rather than nothing.
var floorsElsewhere = map[string]string{
	"likes":         "nearbybench -likes 1000 -floor -floor-db URL -floor-db-group",
	"upload-direct": "uploadbench -mode direct -floor",
	"nearby":        "nearbybench (pgbench of the KNN query)",
}

// benchLines summarises each run of the set, in the order they ran.
func benchLines(runs []benchRun) []benchLine {
	out := make([]benchLine, 0, len(runs))
	for _, r := range runs {
		l := benchLine{Scenario: r.Scenario, Floor: "–"}
		if hint, ok := floorsElsewhere[r.Scenario]; ok {
			l.Floor = "not in this run: " + hint
		}
		switch s := r.Summary; {
		case s == nil:
			l.Figure = "failed: " + r.Error
		default:
			l.Figure = figureOf(s)
			if f, ratio, ok := floorOf(s); ok {
				l.Floor, l.Ratio = f, ratio
			}
		}
		out = append(out, l)
	}
	return out
}

// figureOf is the number a scenario exists to produce.
func figureOf(s *Summary) string {
	p95 := fmt.Sprintf("p95 %.1f ms", s.Totals.Latency.P95)
	switch {
	case s.Steps != nil && s.Scenario == "steps":
		return "ceiling " + s.Steps.Ceiling() + " req/s"
	case s.Tiles != nil:
		return fmt.Sprintf("p95 %.1f ms", s.Tiles.P95Ms)
	case s.Likes != nil && s.Scenario == "likes":
		return fmt.Sprintf("%s, %d recorded (%.1f accepted/s)", p95, s.Likes.Recorded, s.Likes.AcceptedPerS)
	case s.Scenario == "upload-direct":
		return fmt.Sprintf("complete p95 %s ms, %.2f accepted/s", kindP95(s, "direct:complete"), s.Uploads.AcceptedPerS)
	case s.Uploads != nil && s.Scenario == "upload":
		return fmt.Sprintf("%s, %.2f accepted/s", p95, s.Uploads.AcceptedPerS)
	}
	return p95
}

// floorOf is the floor a run measured itself, and the ratio to it.
func floorOf(s *Summary) (string, float64, bool) {
	switch {
	case s.Tiles != nil && s.Tiles.Floor.P95 > 0:
		return fmt.Sprintf("p95 %.1f ms (gin replaying the trace)", s.Tiles.Floor.P95), s.Tiles.P95Ratio, true
	case s.ColdStart != nil && s.ColdStart.CacheOff != nil:
		f := s.ColdStart.CacheOff
		return fmt.Sprintf("p95 %.1f ms (fresh server, cache off)", f.Latency.P95), f.P95Ratio, true
	}
	return "", 0, false
}

func ratioText(r float64) string {
	if r == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", r)
}

// printBenchTable writes the summary for the terminal.
func printBenchTable(w io.Writer, lines []benchLine) {
	fmt.Fprintln(w, "\nmake bench: each scenario beside its floor (same run)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tfigure\tfloor\tratio")
	for _, l := range lines {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Scenario, l.Figure, l.Floor, ratioText(l.Ratio))
	}
	tw.Flush()
}

// benchTableMarkdown is the same table for BENCHMARKS.md or a note.
func benchTableMarkdown(lines []benchLine) string {
	var b strings.Builder
	b.WriteString("| scenario | figure | floor, same run | ratio |\n|---|---|---|---|\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", l.Scenario, mdEscape(l.Figure), mdEscape(l.Floor), ratioText(l.Ratio))
	}
	return b.String()
}
