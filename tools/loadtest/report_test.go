package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"
)

func sampleSummary() *Summary {
	s := &Summary{Scenario: "mixed", Target: "http://127.0.0.1:8080", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Commit: "abc1234", Command: "bin/loadtest mixed -vus 300 -target 'http://127.0.0.1:8080'",
		Host:   Host{NumCPU: 2, GOMAXPROCS: 2, GoVersion: "go1.26.8", OS: "linux", Arch: "amd64"},
		Load:   LoadInfo{Model: "closed", VUs: 300, DurationS: 60, ActualS: 60.2},
		Totals: KindStats{Requests: 100, RatePerS: 10, OK: 97, SuccessRate: 0.97, Latency: Latency{P50: 5, P95: 40, P99: 90}},
		Kinds: map[string]KindStats{"nearby": {Requests: 60, OK: 60, SuccessRate: 1, StatusCodes: map[string]int{"200": 60}},
			"upload:0.5MB": {Requests: 40, OK: 37, SuccessRate: 0.925, StatusCodes: map[string]int{"202": 37, "503": 3}}},
		Failures:  Failures{ByStatus: map[string]int{"503": 3}, ByKind: map[string]int{"5xx": 3}, Rejected: 3},
		Uploads:   &UploadSummary{Attempted: 40, Accepted: 37, Ready: 35, NotReady: 2, AcceptedPerS: 0.6, ReadyPerS: 0.5, MaxQueueDepth: 12},
		Likes:     &LikeSummary{Taps: 10, Accepted: 10, Guides: []GuideLikes{{ID: "g1", ExpectedMin: 3, ExpectedMax: 3, Actual: 2, Lost: 1}}, Lost: 1},
		Steps:     &StepsSummary{On: "nearby", StepS: 30, Steps: []StepResult{{TargetRate: 5, Held: true}}, HeldRate: 5},
		ColdStart: &ColdStartSummary{ReadyAfterS: 1.2, TargetRate: 200, FirstMinute: WindowSummary{Served: 100, Rejected: 7}},
		Queue:     QueueSummary{Available: true, MaxDepth: 12}, ServerCPU: ServerCPU{Available: true, LoadSeconds: 30},
		ErrorSamples: []string{"upload:0.5MB: HTTP 503 <busy> & \"quoted\""}, Notes: []string{"a note with <angle> & amp"},
	}
	for i := range 30 {
		s.Timeline = append(s.Timeline, Bucket{T: i, Arrivals: 10, Requests: 10, OK: 9, Errors: 1, Accepted: 1, Ready: i % 2,
			P50Ms: 5 + float64(i), P95Ms: 40 + float64(i), P99Ms: 90})
		s.Samples = append(s.Samples, Sample{T: float64(i), QueueDepth: float64(i % 7), CPUSeconds: float64(i) * 0.8})
	}
	return s
}

// The report must be well-formed (parsed as XML) and carry the charts as
// inline SVG paths.
func TestReportRendersSVGCharts(t *testing.T) {
	var buf bytes.Buffer
	if err := renderReport(&buf, sampleSummary()); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	svgs, paths := parseReport(t, html)
	if svgs != 4 { // latency, throughput, queue depth, server CPU
		t.Errorf("%d svg charts, want 4", svgs)
	}
	if len(paths) < 3+5+1+1 {
		t.Errorf("%d paths, want one per series", len(paths))
	}
	for _, d := range paths {
		if !strings.HasPrefix(d, "M") || strings.Count(d, "L") < 1 {
			t.Errorf("path %q is not a line", d)
		}
	}
	for _, want := range []string{"Latency over time", "Throughput over time", "abc1234", "&lt;busy&gt;", "ceiling 5 req/s"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "<script") || strings.Contains(html, "http://www.w3.org/2000/svg\"") == false {
		t.Error("report must have no scripts and inline SVG")
	}
	if strings.Contains(html, "src=\"http") || strings.Contains(html, "href=\"http") {
		t.Error("report must not load anything from the network")
	}
}

// parseReport parses the page strictly and returns the number of <svg>
// elements and the d attribute of every <path> inside one.
func parseReport(t *testing.T, html string) (svgs int, paths []string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(html))
	dec.Strict = true
	inSVG := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return svgs, paths
		}
		if err != nil {
			t.Fatalf("report is not well-formed: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "svg":
				svgs++
				inSVG++
			case "path":
				if inSVG == 0 {
					t.Error("path outside svg")
				}
				for _, a := range el.Attr {
					if a.Name.Local == "d" {
						paths = append(paths, a.Value)
					}
				}
			}
		case xml.EndElement:
			if el.Name.Local == "svg" {
				inSVG--
			}
		}
	}
}

func TestReportWithEmptyTimeline(t *testing.T) {
	var buf bytes.Buffer
	s := &Summary{Scenario: "read", Kinds: map[string]KindStats{}}
	if err := renderReport(&buf, s); err != nil {
		t.Fatal(err)
	}
	if svgs, _ := parseReport(t, buf.String()); svgs != 2 {
		t.Errorf("%d charts for an empty run, want 2 (empty axes)", svgs)
	}
}

// Failure tallies read as text in the report and on the terminal, never as
// Go map syntax.
func TestFailureCountsAreReadable(t *testing.T) {
	s := sampleSummary()
	s.Failures.ByStatus = map[string]int{"503": 11, "0": 2}
	s.Failures.ByKind = map[string]int{"5xx": 11, "timeout": 2}
	s.Queue.Available, s.Queue.MaxByState = true, map[string]float64{"pending": 10, "active": 2}
	var buf bytes.Buffer
	if err := renderReport(&buf, s); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"by status: 503 × 11, no answer × 2", "By kind: 5xx × 11, timeout × 2", "(active 2, pending 10)"} {
		if !strings.Contains(html, want) && !strings.Contains(strings.ToLower(html), strings.ToLower(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	lines := strings.Join(headlines(s), "\n")
	if strings.Contains(html, "map[") || strings.Contains(lines, "map[") {
		t.Errorf("Go map syntax in the output:\n%s", lines)
	}
	if !strings.Contains(lines, "failures: by kind 5xx × 11, timeout × 2; by status 503 × 11, no answer × 2") {
		t.Errorf("headline: %s", lines)
	}
	if counts(nil) != "none" {
		t.Errorf("empty tally: %q", counts(nil))
	}
}
