package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// benchStep is one scenario of the standard set.
type benchStep struct {
	scenario string
	uploads  bool // the worker runs; otherwise it is paused (or, not ours, the queue drained)
	set      func(c *Config)
}

// benchSteps is the standard set behind `make bench`: every scenario with
// durations short enough that the whole set, setup and drains included,
// stays under 10 minutes on a 2-core host. The scenarios without uploads
// come first, while the photo queue is empty, and run with the worker
// paused; each scenario with uploads starts with an empty queue (what the
// one before left is discarded after its drain bound).
var benchSteps = []benchStep{
	{"read", false, func(c *Config) { c.Rate, c.Duration = 100, 30*time.Second }},
	{"nearby", false, func(c *Config) { c.Rate, c.Duration = 100, 30*time.Second }},
	// No think time: the likes/s the server sustains, not what 1,000
	// leisurely users send.
	{"likes", false, func(c *Config) { c.VUs, c.Duration, c.Think = 1000, 30*time.Second, 0 }},
	{"tiles", false, func(c *Config) { c.Rate, c.Duration = 500, 20*time.Second }},
	{"steps", false, func(c *Config) {
		c.StepsOn, c.StepLen, c.StepStart, c.StepMax, c.StepRefine = "nearby", 10*time.Second, 20, 10240, 2
	}},
	{"upload", true, func(c *Config) { c.VUs, c.Duration, c.Drain = 10, 30*time.Second, 30*time.Second }},
	{"upload-direct", true, func(c *Config) { c.VUs, c.Duration, c.Drain = 10, 30*time.Second, 30*time.Second }},
	{"mixed", true, func(c *Config) {
		c.VUs, c.Duration, c.Ramp, c.Drain = 300, 60*time.Second, 30*time.Second, 30*time.Second
	}},
	// The map load of a fresh server on -cold-database (1 M guides in make
	// bench), after the same load on a fresh server with the cache off.
	{"coldstart", false, func(c *Config) {
		c.StepsOn, c.Rate, c.Duration, c.ColdFloor, c.Users = "nearby", 200, 20*time.Second, true, minUsers
	}},
}

const (
	benchBudget     = 14 * time.Minute // hard bound; the set is planned for < 10
	benchDrainBound = 2 * time.Minute  // a server not ours: wait this long for its queue to empty
)

type benchRun struct {
	Scenario string   `json:"scenario"`
	Error    string   `json:"error,omitempty"`
	Summary  *Summary `json:"summary,omitempty"`
}

type benchReport struct {
	StartedAt  time.Time   `json:"started_at"`
	FinishedAt time.Time   `json:"finished_at"`
	TookS      float64     `json:"took_s"`
	Commit     string      `json:"commit"`
	Command    string      `json:"command"`
	Host       Host        `json:"host"`
	LoadAvg    string      `json:"load_avg,omitempty"` // /proc/loadavg when the set ended
	Table      []benchLine `json:"table"`              // what printBenchTable shows
	Runs       []benchRun  `json:"runs"`
}

// runBench sets up once (1,000 users, seeded guides, photos), runs every
// bench step sharing that setup, and writes each run's outputs plus a small
// BENCHMARKS.json. A failed step is recorded and the others still run.
func runBench(ctx context.Context, base Config) error {
	rep := benchReport{StartedAt: time.Now(), Commit: gitCommit(), Command: base.CommandLine, Host: hostInfo()}
	ctx, cancel := context.WithTimeout(ctx, benchBudget)
	defer cancel()
	u, err := checkTarget(base.Target, base.AllowRemote)
	if err != nil {
		return err
	}
	procs, err := ensureServer(ctx, &base, u.String())
	if err != nil {
		return err
	}
	defer func() { procs.stop() }()
	fx, err := benchSetup(ctx, &base, u.String())
	if err != nil {
		return err
	}
	var errs []error
	for _, st := range benchSteps {
		if st.scenario == "coldstart" {
			procs.stop() // the warm server and worker must not share the cores
			procs = nil
		}
		r := runBenchStep(ctx, base, st, fx, procs, rep.Commit)
		if r.Error != "" {
			errs = append(errs, fmt.Errorf("%s: %s", st.scenario, r.Error))
		}
		rep.Runs = append(rep.Runs, r)
	}
	rep.FinishedAt = time.Now()
	rep.TookS = round(rep.FinishedAt.Sub(rep.StartedAt).Seconds(), 1)
	rep.LoadAvg, rep.Table = loadAvg(), benchLines(rep.Runs)
	if err := writeJSON(benchJSONPath(&base), rep); err != nil {
		errs = append(errs, err)
	}
	html := "none (-no-write)"
	if !base.NoWrite {
		var err error
		if html, err = writeBenchReport(&base, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	base.Log.Info("bench finished", "took", time.Since(rep.StartedAt).Round(time.Second), "json", benchJSONPath(&base), "report", html)
	printBenchTable(os.Stdout, rep.Table)
	fmt.Printf("load average at the end: %s; report: %s\n", rep.LoadAvg, html)
	return errors.Join(errs...)
}

// benchSetup builds the shared fixture.
func benchSetup(ctx context.Context, base *Config, target string) (*fixture, error) {
	base.Users = max(base.Users, 1000)
	if base.SeedGuides == 0 {
		base.SeedGuides = 300
	}
	sctx, cancel := context.WithTimeout(ctx, base.SetupTimeout)
	defer cancel()
	c := &client{base: target, hc: newHTTPClient(base.Timeout, 64), rec: newRecorder(time.Now())}
	defer c.hc.CloseIdleConnections()
	base.Log.Info("bench setup", "users", base.Users, "seed_guides", base.SeedGuides)
	fx, err := buildFixture(sctx, base, needs{guides: true, photos: true}, c)
	if err != nil {
		return nil, fmt.Errorf("bench setup: %w", err)
	}
	return fx, nil
}

func runBenchStep(ctx context.Context, base Config, st benchStep, fx *fixture, procs *fleet, commit string) benchRun {
	c := base
	c.Scenario, c.StartServer, c.fx, c.procs = st.scenario, "never", fx, procs
	c.Rate, c.VUs, c.Duration = 0, 0, 0
	c.LikeSettle = 5 * time.Second
	st.set(&c)
	r := benchRun{Scenario: st.scenario}
	if st.scenario != "coldstart" {
		if err := benchWorker(ctx, &c, st.uploads); err != nil {
			r.Error = err.Error()
			return r
		}
	}
	c.Log.Info("bench step", "scenario", st.scenario, "worker", c.workerState)
	sum, err := run(ctx, c)
	if err != nil {
		r.Error = err.Error()
	}
	if sum.Scenario == "" {
		return r
	}
	if st.uploads && procs != nil {
		n, derr := discardBacklog()
		sum.Worker.Discarded = n
		if derr != nil {
			sum.Notes = append(sum.Notes, "queued photos not discarded: "+derr.Error())
		}
		// The server reads the queue's size every few seconds: wait until it
		// sees the discard, so the next row's backlog at start is true.
		waitQueueEmpty(ctx, c.Target, 10*time.Second)
	}
	sum.Commit = commit
	if werr := writeOutputs(&c, &sum); werr != nil && r.Error == "" {
		r.Error = werr.Error()
	}
	compact := sum
	compact.Timeline, compact.Samples = nil, nil // BENCHMARKS.json stays small
	r.Summary = &compact
	return r
}

// benchWorker sets the worker up for a step: running for one with uploads;
// paused for one without, or, when the server is not this tool's, with
// its queue drained (bounded).
func benchWorker(ctx context.Context, c *Config, uploads bool) error {
	switch {
	case uploads && c.procs != nil:
		c.workerState = "running"
		return c.procs.resumeWorker()
	case uploads:
		c.workerState = "unknown"
	case c.procs != nil:
		c.procs.pauseWorker()
		c.workerState = "paused"
	default:
		switch left, known := waitQueueEmpty(ctx, c.Target, benchDrainBound); {
		case !known:
			c.workerState = "unknown"
		case left > 0:
			c.workerState = fmt.Sprintf("not drained (%g queued)", left)
		default:
			c.workerState = "drained"
		}
	}
	return nil
}

// waitQueueEmpty polls the target's media queue until it is empty or the
// bound passes, and returns what is left; known is false when /metrics
// does not tell.
func waitQueueEmpty(ctx context.Context, base string, bound time.Duration) (left float64, known bool) {
	hc := newHTTPClient(5*time.Second, 1)
	defer hc.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		snap, err := scrapeMetrics(ctx, hc, base)
		if err != nil || !snap.hasQueue {
			return left, known
		}
		left, known = snap.depth(), true
		if left == 0 || !sleepCtx(ctx, time.Second) {
			return left, known
		}
	}
}

func benchJSONPath(c *Config) string {
	if c.BenchJSON != "" {
		return c.BenchJSON
	}
	return filepath.Join(filepath.Dir(c.Benchmarks), "BENCHMARKS.json")
}

// loadAvg is the host's load average (1, 5, 15 min), which every figure
// measured on a shared machine must be read beside.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
