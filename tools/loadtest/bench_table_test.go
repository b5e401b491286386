package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchRuns is a set as runBench records it: floors measured in the run
// (tiles, the cold start), floors measured by another tool, a climb and a
// step that failed.
func benchRuns() []benchRun {
	return []benchRun{
		{Scenario: "nearby", Summary: &Summary{Scenario: "nearby", Totals: KindStats{Latency: Latency{P95: 4.25}}}},
		{Scenario: "likes", Summary: &Summary{Scenario: "likes", Totals: KindStats{Latency: Latency{P95: 279}},
			Likes: &LikeSummary{Recorded: 3397, AcceptedPerS: 3500}}},
		{Scenario: "tiles", Summary: &Summary{Scenario: "tiles", Tiles: &TileSummary{P95Ms: 0.55, Floor: Latency{P95: 0.3}, P95Ratio: 1.83}}},
		{Scenario: "steps", Summary: &Summary{Scenario: "steps", Steps: &StepsSummary{HeldRate: 640, Capped: false}}},
		{Scenario: "upload-direct", Error: "setup: no bucket"},
		{Scenario: "coldstart", Summary: &Summary{Scenario: "coldstart", Totals: KindStats{Latency: Latency{P95: 86.7}},
			ColdStart: &ColdStartSummary{CacheOff: &ColdFloor{Latency: Latency{P95: 73.9}, P95Ratio: 1.17}}}},
	}
}

// make bench ends with one table: each scenario, its figure, the floor
// the same run measured (or the tool that measures it) and the ratio.
func TestBenchTableHasEachScenarioBesideItsFloor(t *testing.T) {
	lines := benchLines(benchRuns())
	var buf bytes.Buffer
	printBenchTable(&buf, lines)
	out := buf.String()
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != 2+len(lines) {
		t.Fatalf("want a title, a header and %d rows:\n%s", len(lines), out)
	}
	for i, want := range [][]string{
		{"nearby", "p95 4.2 ms", "not in this run: nearbybench", "–"},
		{"likes", "p95 279.0 ms, 3397 recorded", "nearbybench -likes 1000 -floor", "–"},
		{"tiles", "p95 0.6 ms", "p95 0.3 ms (gin replaying the trace)", "1.83×"},
		{"steps", "ceiling 640 req/s", "–"},
		{"upload-direct", "failed: setup: no bucket", "uploadbench -mode direct -floor"},
		{"coldstart", "p95 86.7 ms", "p95 73.9 ms (fresh server, cache off)", "1.17×"},
	} {
		row := rows[2+i]
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("row %d %q lacks %q", i, row, w)
			}
		}
	}
	md := benchTableMarkdown(lines)
	if n := strings.Count(md, "\n"); n != 2+len(lines) || !strings.Contains(md, "| tiles | p95 0.6 ms | p95 0.3 ms (gin replaying the trace) | 1.83× |") {
		t.Errorf("markdown table:\n%s", md)
	}
}

func scaleRows() []ScaleRow {
	return []ScaleRow{
		{Label: "100k", Guides: 100_000, DBBytes: 80 << 20, RSSBytes: 90 << 20, Warm: MapP95{4, 5, 1}, Cold: MapP95{8, 9, 3}, Ceiling: "640"},
		{Label: "1m", Guides: 1_000_000, SeedS: 95, DBBytes: 800 << 20, RSSBytes: 100 << 20, Warm: MapP95{4, 6, 1}, Cold: MapP95{10, 12, 4},
			LikesP95: 200, LikesRecordedPerS: 3000, Ceiling: "640"},
		{Label: "10m", Guides: 10_000_000, SeedS: 900, DBBytes: 8000 << 20, RSSBytes: 110 << 20, Warm: MapP95{6, 6, 1.2}, Cold: MapP95{13, 12, 4},
			LikesP95: 220, LikesRecordedPerS: 2900, Ceiling: "320"},
	}
}

// The Scale table has a row per size and the largest size over the one
// before it, the 1.3× goal.
func TestScaleTableEndsWithTheGrowthRatios(t *testing.T) {
	md := scaleMarkdown(scaleRows())
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) != 2+3+1 {
		t.Fatalf("want header, 3 rows and a ratio row:\n%s", md)
	}
	if !strings.HasPrefix(lines[3], "| 1m | 1m35s | 800 MiB | 100 MiB | 4.0 / 10.0 | 6.0 / 12.0 | 1.0 / 4.0 | 200.0, 3000 | 640 |") {
		t.Errorf("1M row: %s", lines[3])
	}
	if !strings.HasPrefix(lines[5], "| 10m ÷ 1m | | 10.00× | 1.10× | 1.50× / 1.30× | 1.00× / 1.00× | 1.20× / 1.00× | 1.10× |") {
		t.Errorf("ratio row: %s", lines[5])
	}
}

// The bench report shows the same table and, when a scale run wrote its
// rows, a chart of p95 against the data size, the sizes as ticks.
func TestBenchReportChartsP95AgainstTheDataSize(t *testing.T) {
	rep := &benchReport{StartedAt: time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC), Commit: "abc1234", Command: "bin/loadtest bench",
		Host: hostInfo(), LoadAvg: "0.70 0.80 0.90", Runs: benchRuns()}
	rep.Table = benchLines(rep.Runs)
	var with, without bytes.Buffer
	if err := renderBenchReport(&with, rep, &ScaleReport{Commit: "def5678", Rows: scaleRows()}); err != nil {
		t.Fatal(err)
	}
	svgs, paths := parseReport(t, with.String())
	if svgs != 1 || len(paths) != 7 { // nearby, viewport, tiles warm and cold, the like storm
		t.Fatalf("%d charts, %d series; want 1 and 7", svgs, len(paths))
	}
	for _, want := range []string{">100k</text>", ">1M</text>", ">10M</text>", "<td>1.83×</td>", "<td>p95 73.9 ms (fresh server, cache off)</td>", "0.70 0.80 0.90"} {
		if !strings.Contains(with.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if err := renderBenchReport(&without, rep, nil); err != nil {
		t.Fatal(err)
	}
	if svgs, _ := parseReport(t, without.String()); svgs != 0 || !strings.Contains(without.String(), "No scale run found") {
		t.Errorf("without a scale run: %d charts", svgs)
	}
}

// Seed times come from the flag or a file, one label=duration a line.
func TestScaleSeedTimesFromAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed-times")
	if err := os.WriteFile(path, []byte("# seeded on the quiet machine\n100k=9s\n1m=95s\n10m=15m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := parseSeedTimes("@" + path)
	if err != nil || got["100k"] != 9 || got["1m"] != 95 || got["10m"] != 900 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := parseSeedTimes("1m=ninety"); err == nil {
		t.Fatal("a bad duration must be refused")
	}
}
