package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// column is one BENCHMARKS.md column.
type column struct {
	name string
	val  func(*Summary) string
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

var headColumns = []column{
	{"Date (UTC)", func(s *Summary) string { return s.StartedAt.UTC().Format("2006-01-02 15:04") }},
	{"Commit", func(s *Summary) string { return "`" + s.Commit + "`" }},
	{"Load", loadLabel},
	{"Req/s", func(s *Summary) string { return f1(s.Totals.RatePerS) }},
	{"OK %", func(s *Summary) string { return f2(100 * s.Totals.SuccessRate) }},
	{"p50 ms", func(s *Summary) string { return f1(s.Totals.Latency.P50) }},
	{"p95 ms", func(s *Summary) string { return f1(s.Totals.Latency.P95) }},
	{"p99 ms", func(s *Summary) string { return f1(s.Totals.Latency.P99) }},
}

var tailColumns = []column{
	{"Worker", workerLabel},
	{"CPU cores: server / worker / generator / others", func(s *Summary) string { return s.CPU.Label() }},
	{"Command", func(s *Summary) string { return "`" + mdEscape(s.Command) + "`" }},
}

// workerLabel is the worker's state, with the backlog the load started
// with when there was one.
func workerLabel(s *Summary) string {
	w := s.Worker
	if w.State == "" {
		return "n/a"
	}
	if w.BacklogAtStart > 0 {
		return fmt.Sprintf("%s, %g queued at start", w.State, w.BacklogAtStart)
	}
	return w.State
}

// scenarioColumns are the numbers each scenario exists to produce.
var scenarioColumns = map[string][]column{
	"upload": {
		{"Accepted/s", func(s *Summary) string { return f2(s.Uploads.AcceptedPerS) }},
		{"Ready/s", func(s *Summary) string { return f2(s.Uploads.ReadyPerS) }},
		{"Not ready", func(s *Summary) string { return fmt.Sprint(s.Uploads.NotReady + s.Uploads.Failed) }},
		{"Drain s", func(s *Summary) string { return f1(s.Uploads.DrainS) }},
		{"Max queue", func(s *Summary) string { return fmt.Sprint(s.Queue.MaxDepth) }},
	},
	"upload-direct": {
		{"Accepted/s", func(s *Summary) string { return f2(s.Uploads.AcceptedPerS) }},
		{"Ready/s", func(s *Summary) string { return f2(s.Uploads.ReadyPerS) }},
		{"Not ready", func(s *Summary) string { return fmt.Sprint(s.Uploads.NotReady + s.Uploads.Failed) }},
		{"Complete p95 ms", func(s *Summary) string { return kindP95(s, "direct:complete") }},
		{"Max queue", func(s *Summary) string { return fmt.Sprint(s.Queue.MaxDepth) }},
	},
	"likes": {
		{"Accepted/s", func(s *Summary) string { return f1(s.Likes.AcceptedPerS) }},
		{"Lost", func(s *Summary) string { return fmt.Sprint(s.Likes.Lost) }},
		{"Duplicated", func(s *Summary) string { return fmt.Sprint(s.Likes.Duplicated) }},
	},
	"mixed": {
		{"Uploads ready/accepted", func(s *Summary) string { return fmt.Sprintf("%d/%d", s.Uploads.Ready, s.Uploads.Accepted) }},
		{"Likes lost/dup", func(s *Summary) string { return fmt.Sprintf("%d/%d", s.Likes.Lost, s.Likes.Duplicated) }},
		{"Max queue", func(s *Summary) string { return fmt.Sprint(s.Queue.MaxDepth) }},
	},
	"steps": {
		{"Ceiling req/s", func(s *Summary) string { return s.Steps.Ceiling() }},
		{"First failed", func(s *Summary) string { return fmt.Sprint(s.Steps.FirstFailedRate) }},
		{"Steps", func(s *Summary) string { return s.Steps.Rates() }},
	},
	"abuse": abuseColumns,
	"tiles": {
		{"304 %", func(s *Summary) string { return f1(100 * s.Tiles.Share304) }},
		{"Floor p95 ms", func(s *Summary) string { return f1(s.Tiles.Floor.P95) }},
		{"p95 ÷ floor", func(s *Summary) string { return f2(s.Tiles.P95Ratio) }},
		{"Seoul gzip max B (z6/z10/z14)", func(s *Summary) string {
			out := ""
			for i, z := range s.Tiles.Seoul {
				if i > 0 {
					out += "/"
				}
				out += fmt.Sprint(z.MaxGzip)
			}
			return out
		}},
		{"Max gzip B", func(s *Summary) string { return fmt.Sprint(s.Tiles.MaxGzipBytes) }},
	},
	"coldstart": {
		{"Ready after s", func(s *Summary) string { return f2(s.ColdStart.ReadyAfterS) }},
		{"Served/s 1st min", func(s *Summary) string { return f1(s.ColdStart.FirstMinute.ServedPerS) }},
		{"503s 1st min", func(s *Summary) string { return fmt.Sprint(s.ColdStart.FirstMinute.Rejected) }},
		{"Cache-off p95 ms", func(s *Summary) string {
			if f := s.ColdStart.CacheOff; f != nil {
				return f1(f.Latency.P95)
			}
			return "n/a"
		}},
		{"p95 ÷ cache-off", func(s *Summary) string {
			if f := s.ColdStart.CacheOff; f != nil {
				return f2(f.P95Ratio)
			}
			return "n/a"
		}},
	},
}

func loadLabel(s *Summary) string {
	switch s.Load.Model {
	case "open":
		return fmt.Sprintf("%g/s × %gs", s.Load.Rate, s.Load.DurationS)
	case "steps":
		return fmt.Sprintf("steps of %gs", s.Steps.StepS)
	default:
		return fmt.Sprintf("%d VUs × %gs", s.Load.VUs, s.Load.DurationS)
	}
}

func benchColumns(s *Summary) []column {
	cols := append([]column(nil), headColumns...)
	if extrasAvailable(s) {
		cols = append(cols, scenarioColumns[s.Scenario]...)
	}
	return append(cols, tailColumns...)
}

// extrasAvailable guards the scenario columns against a run that failed
// before producing its section.
func extrasAvailable(s *Summary) bool {
	switch s.Scenario {
	case "upload", "upload-direct":
		return s.Uploads != nil
	case "likes":
		return s.Likes != nil
	case "mixed":
		return s.Uploads != nil && s.Likes != nil
	case "steps":
		return s.Steps != nil
	case "coldstart":
		return s.ColdStart != nil
	case "abuse":
		return s.Abuse != nil
	case "tiles":
		return s.Tiles != nil
	}
	return true
}

func tableRow(cells []string) string { return "| " + strings.Join(cells, " | ") + " |" }

// benchmarkRow renders the heading, table header and row for s.
func benchmarkRow(s *Summary) (heading, header, sep, row string) {
	cols := benchColumns(s)
	names, dashes, vals := make([]string, len(cols)), make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], dashes[i], vals[i] = c.name, "---", c.val(s)
	}
	return "### guidepost-load: " + s.title(), tableRow(names), tableRow(dashes), tableRow(vals)
}

const benchmarksPreamble = "# Benchmarks\n\nRows are appended by `bin/loadtest` (see tools/loadtest/README.md). " +
	"Generator and server share the host unless stated: compare ratios within one run.\n"

// appendBenchmarkRow adds s's row at the end of its scenario's table,
// creating the heading and table header when the file lacks them.
func appendBenchmarkRow(path string, s *Summary) error {
	heading, header, sep, row := benchmarkRow(s)
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		old, err = []byte(benchmarksPreamble), nil
	}
	if err != nil {
		return err
	}
	text := insertRow(string(old), heading, header, sep, row)
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// insertRow puts row after the last table line under heading. A missing
// heading is added with its table at the end of the "## … `make bench`"
// section when the file has one (the repository's BENCHMARKS.md does), else
// at the end of the file.
func insertRow(text, heading, header, sep, row string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	at := indexOfLine(lines, heading)
	if at < 0 {
		end := sectionEnd(lines, benchSection(lines))
		block := []string{"", heading, "", header, sep, row}
		if end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			block = append(block, "") // keep a blank line before the next heading
		}
		lines = append(lines[:end], append(block, lines[end:]...)...)
		return strings.Join(lines, "\n") + "\n"
	}
	last := -1
	for i := at + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "#") {
			break
		}
		if strings.HasPrefix(l, "|") {
			last = i
		} else if last >= 0 && l != "" {
			break
		}
	}
	switch {
	case last < 0: // heading without a table
		lines = append(lines[:at+1], append([]string{"", header, sep, row}, lines[at+1:]...)...)
	case strings.TrimSpace(lines[tableStart(lines, last)]) != header:
		// The columns changed since the last row: a new table under the
		// same heading, the old rows kept as they were written.
		lines = append(lines[:last+1], append([]string{"", header, sep, row}, lines[last+1:]...)...)
	default:
		lines = append(lines[:last+1], append([]string{row}, lines[last+1:]...)...)
	}
	return strings.Join(lines, "\n") + "\n"
}

// tableStart is the header line of the table whose line last is.
func tableStart(lines []string, last int) int {
	for last > 0 && strings.HasPrefix(strings.TrimSpace(lines[last-1]), "|") {
		last--
	}
	return last
}

func indexOfLine(lines []string, want string) int {
	for i, l := range lines {
		if strings.TrimSpace(l) == want {
			return i
		}
	}
	return -1
}

// benchSection is the index of the "## …`make bench`…" heading, or -1.
func benchSection(lines []string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") && strings.Contains(l, "make bench") {
			return i
		}
	}
	return -1
}

// sectionEnd is the index of the next "## " heading after start (the end
// of the file when start < 0 or none follows), trailing blank lines excluded.
func sectionEnd(lines []string, start int) int {
	end := len(lines)
	if start >= 0 {
		for i := start + 1; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "## ") || strings.HasPrefix(lines[i], "# ") {
				end = i
				break
			}
		}
	}
	for end > 0 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return end
}

// kindP95 is one request kind's p95 in ms, "n/a" when the run has none.
func kindP95(s *Summary, kind string) string {
	k, ok := s.Kinds[kind]
	if !ok || k.Requests == 0 {
		return "n/a"
	}
	return f1(k.Latency.P95)
}
