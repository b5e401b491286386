package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchmarksRowsGoUnderTheirScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	mixed := sampleSummary()
	read := &Summary{Scenario: "read", StartedAt: mixed.StartedAt, Commit: "abc1234", Command: "bin/loadtest read | x",
		Load: LoadInfo{Model: "open", Rate: 200, DurationS: 30}, Host: mixed.Host}
	for _, s := range []*Summary{mixed, read, mixed} {
		if err := appendBenchmarkRow(path, s); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	text := string(b)
	if strings.Count(text, "### guidepost-load: mixed") != 1 || strings.Count(text, "### guidepost-load: read") != 1 {
		t.Fatalf("one heading per scenario expected:\n%s", text)
	}
	lines := strings.Split(text, "\n")
	var mixedRows, readRows int
	section := ""
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "### "):
			section = l
		case strings.HasPrefix(l, "| 2026"):
			if strings.HasSuffix(section, "mixed") {
				mixedRows++
			} else {
				readRows++
			}
		}
	}
	if mixedRows != 2 || readRows != 1 {
		t.Errorf("rows: mixed %d read %d, want 2 and 1:\n%s", mixedRows, readRows, text)
	}
	if !strings.Contains(text, `read \| x`) || !strings.Contains(text, "Uploads ready/accepted") || !strings.Contains(text, "`abc1234`") {
		t.Errorf("row content:\n%s", text)
	}
	if !strings.HasPrefix(text, "# Benchmarks") {
		t.Errorf("preamble missing")
	}
}

func TestInsertRowUnderHeadingWithoutTable(t *testing.T) {
	text := "# B\n\n### guidepost-load: read\n\nnotes\n\n## other\n"
	got := insertRow(text, "### guidepost-load: read", "| h |", "| --- |", "| r |")
	if !strings.Contains(got, "### guidepost-load: read\n\n| h |\n| --- |\n| r |\n") {
		t.Errorf("got:\n%s", got)
	}
}

// The repository's BENCHMARKS.md has a "## Load-test suite (`make bench`)"
// section, not last forever: new scenario tables go inside it.
func TestNewSectionsGoUnderTheMakeBenchSection(t *testing.T) {
	text := "# Benchmarks\n\nintro\n\n## Uploads\n\n## Load-test suite (`make bench`)\n\nSome text.\n\n## Later section\n\nx\n"
	got := insertRow(text, "### guidepost-load: read", "| h |", "| --- |", "| r1 |")
	got = insertRow(got, "### guidepost-load: likes", "| h |", "| --- |", "| l1 |")
	got = insertRow(got, "### guidepost-load: read", "| h |", "| --- |", "| r2 |")
	want := "## Load-test suite (`make bench`)\n\nSome text.\n\n### guidepost-load: read\n\n| h |\n| --- |\n| r1 |\n| r2 |\n\n" +
		"### guidepost-load: likes\n\n| h |\n| --- |\n| l1 |\n\n## Later section\n\nx\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("got:\n%s\nwant suffix:\n%s", got, want)
	}
}

// A row whose columns differ from the table's (the columns changed since)
// starts a new table under the same heading; the old rows stay.
func TestInsertRowStartsANewTableWhenTheColumnsChanged(t *testing.T) {
	text := "### guidepost-load: read\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n## next\n"
	got := insertRow(text, "### guidepost-load: read", "| a | c |", "| --- | --- |", "| 3 | 4 |")
	got = insertRow(got, "### guidepost-load: read", "| a | c |", "| --- | --- |", "| 5 | 6 |")
	want := "### guidepost-load: read\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| a | c |\n| --- | --- |\n| 3 | 4 |\n| 5 | 6 |\n\n## next\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
