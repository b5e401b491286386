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
		benchSteps = append(benchSteps, benchStep{st.scenario, st.uploads, func(c *Config) { st.set(c); shorten(c) }})
	}
	f := newFakeAPI()
	srv := f.start(t)
	dir := t.TempDir()
	cfg := testConfig(t, "bench", srv.URL)
	cfg.NoWrite, cfg.Out, cfg.Benchmarks = false, filepath.Join(dir, "out"), filepath.Join(dir, "BENCHMARKS.md")
	cfg.ServerBin, cfg.SeedGuides, cfg.CommandLine = os.Args[0], 30, "bin/loadtest bench"
	if err := runBench(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(cfg.Benchmarks)
	for _, name := range []string{"upload", "read", "nearby", "mixed", "likes", "tiles", "steps (nearby)", "coldstart (nearby)"} {
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
			continue
		}
		// Not this tool's server: before a scenario without uploads it
		// waits for the queue to empty; the cold server runs no worker.
		want := map[bool]string{true: "unknown", false: "drained"}[benchUploads(r.Scenario)]
		if r.Scenario == "coldstart" {
			want = "none"
		}
		if w := r.Summary.Worker; w.State != want || (want == "drained" && w.BacklogAtStart != 0) {
			t.Errorf("%s: worker %+v, want %s", r.Scenario, w, want)
		}
		if cpu := r.Summary.CPU; !cpu.Available || cpu.Generator <= 0 || (cpu.ServerFrom == "") {
			t.Errorf("%s: CPU split %+v", r.Scenario, cpu)
		}
	}
	if cs := rep.Runs[len(rep.Runs)-1].Summary; cs == nil || cs.ColdStart == nil || cs.ColdStart.CacheOff == nil || cs.ColdStart.CacheOff.Requests == 0 {
		t.Errorf("coldstart without its cache-off floor: %+v", cs)
	}
	if f.signups < 1000 {
		t.Errorf("bench created %d users, want 1000 (likes runs 1,000 VUs)", f.signups)
	}
	reports, _ := filepath.Glob(filepath.Join(cfg.Out, "*", "report.html"))
	if len(reports) != len(benchSteps)+1 { // one per scenario, and the bench's with the summary table
		t.Errorf("%d HTML reports, want %d", len(reports), len(benchSteps)+1)
	}
	if len(rep.Table) != len(benchSteps) {
		t.Errorf("summary table of %d rows, want one per scenario", len(rep.Table))
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

func benchUploads(scenario string) bool {
	for _, st := range benchSteps {
		if st.scenario == scenario {
			return st.uploads
		}
	}
	return false
}

// Started by the tool, serve and worker are two processes: the worker is
// paused for a scenario without uploads and runs for one with, and each
// process's CPU is read from /proc.
func TestBenchRunsServeAndWorkerApart(t *testing.T) {
	t.Setenv(fakeServerEnv, "1") // the server and worker subprocesses become fakes
	t.Setenv(fakeShedEnv, "0")
	t.Setenv("REDIS_URL", "") // the fake queues nothing in Redis: nothing to discard
	orig := benchSteps
	t.Cleanup(func() { benchSteps = orig })
	benchSteps = nil
	for _, st := range orig {
		if st.scenario == "nearby" || st.scenario == "upload" {
			benchSteps = append(benchSteps, benchStep{st.scenario, st.uploads, func(c *Config) { st.set(c); shorten(c) }})
		}
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := testConfig(t, "bench", "http://"+addr)
	cfg.StartServer, cfg.ServerBin, cfg.SeedGuides = "always", os.Args[0], 10
	cfg.Benchmarks, cfg.BenchJSON = "", filepath.Join(dir, "BENCHMARKS.json")
	err = runBench(t.Context(), cfg)
	raw, rerr := os.ReadFile(cfg.BenchJSON)
	if rerr != nil {
		t.Fatal(err, rerr)
	}
	var rep benchReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Summary == nil {
			t.Fatalf("%s: %s", r.Scenario, r.Error)
		}
		w, cpu := r.Summary.Worker, r.Summary.CPU
		t.Logf("%s: worker %+v, CPU %s %+v, notes %q", r.Scenario, w, cpu.Label(), cpu, r.Summary.Notes)
		want := map[string][2]string{"nearby": {"paused", "paused"}, "upload": {"running", "proc"}}[r.Scenario]
		if w.State != want[0] || cpu.WorkerFrom != want[1] || cpu.ServerFrom != "proc" || !cpu.Available {
			t.Errorf("%s: worker %q, CPU from server %q worker %q; want %q, proc, %q", r.Scenario, w.State, cpu.ServerFrom, cpu.WorkerFrom, want[0], want[1])
		}
	}
	if err != nil {
		t.Error(err)
	}
}
