package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bench runs every scenario of the standard set (shortened here) against
// the fake, writes one BENCHMARKS.md row per scenario and BENCHMARKS.json.
func TestBenchRunsTheStandardSet(t *testing.T) {
	t.Setenv(fakeServerEnv, "1") // coldstart's server subprocess becomes the fake
	orig := benchSteps
	t.Cleanup(func() { benchSteps = orig })
	benchSteps = nil
	for _, st := range orig {
		benchSteps = append(benchSteps, benchStep{st.scenario, func(c *Config) { st.set(c); shorten(c) }})
	}
	f := newFakeAPI()
	srv := f.start(t)
	dir := t.TempDir()
	cfg := testConfig(t, "bench", srv.URL)
	cfg.NoWrite, cfg.Out, cfg.Benchmarks = false, filepath.Join(dir, "out"), filepath.Join(dir, "BENCHMARKS.md")
	cfg.ServerBin, cfg.SeedGuides, cfg.CommandLine = os.Args[0], 30, "go run ./scripts/loadtest bench"
	if err := runBench(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(cfg.Benchmarks)
	for _, name := range []string{"upload", "read", "nearby", "mixed", "likes", "tiles", "steps (nearby)", "coldstart"} {
		if !strings.Contains(string(md), "### guidepost-load: "+name+"\n") {
			t.Errorf("BENCHMARKS.md lacks %s:\n%s", name, md)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "BENCHMARKS.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep benchReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != len(benchSteps) {
		t.Fatalf("%d runs in BENCHMARKS.json", len(rep.Runs))
	}
	for _, r := range rep.Runs {
		if r.Error != "" || r.Summary == nil || r.Summary.Timeline != nil || r.Summary.Totals.Requests == 0 {
			t.Errorf("%s: error %q, summary present %v", r.Scenario, r.Error, r.Summary != nil)
		}
	}
	if f.signups < 1000 {
		t.Errorf("bench created %d users, want 1000 (likes runs 1,000 VUs)", f.signups)
	}
	reports, _ := filepath.Glob(filepath.Join(cfg.Out, "*", "report.html"))
	if len(reports) != len(benchSteps) {
		t.Errorf("%d HTML reports, want %d", len(reports), len(benchSteps))
	}
}

// shorten keeps a bench step's shape but makes it last about a second.
func shorten(c *Config) {
	c.Duration = min(c.Duration, time.Second)
	c.VUs, c.Rate = min(c.VUs, 20), min(c.Rate, 50)
	c.Ramp, c.Think, c.Drain = 200*time.Millisecond, 20*time.Millisecond, time.Second
	c.StepLen, c.StepMax = 300*time.Millisecond, 20
	c.LikeSettle = 300 * time.Millisecond
}
