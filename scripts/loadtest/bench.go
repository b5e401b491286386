package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// benchStep is one scenario of the standard set.
type benchStep struct {
	scenario string
	set      func(c *Config)
}

// benchSteps is the standard set behind `make bench`: every scenario with
// durations short enough that the whole set, setup and drains included,
// stays under 10 minutes on a 2-core host (~5 min of load, the rest bounded
// drains and settles).
var benchSteps = []benchStep{
	{"upload", func(c *Config) { c.VUs, c.Duration, c.Drain = 10, 30*time.Second, 40*time.Second }},
	{"upload-direct", func(c *Config) { c.VUs, c.Duration, c.Drain = 10, 30*time.Second, 40*time.Second }},
	{"read", func(c *Config) { c.Rate, c.Duration = 100, 30*time.Second }},
	{"nearby", func(c *Config) { c.Rate, c.Duration = 100, 30*time.Second }},
	{"mixed", func(c *Config) {
		c.VUs, c.Duration, c.Ramp, c.Drain = 300, 60*time.Second, 30*time.Second, 40*time.Second
	}},
	{"likes", func(c *Config) { c.VUs, c.Duration = 1000, 30*time.Second }},
	{"tiles", func(c *Config) { c.Rate, c.Duration = 500, 20*time.Second }},
	{"steps", func(c *Config) { c.StepsOn, c.StepLen, c.StepStart, c.StepMax = "nearby", 10*time.Second, 5, 320 }},
	{"coldstart", func(c *Config) { c.Rate, c.Duration = 200, 60*time.Second }},
}

const benchBudget = 14 * time.Minute // hard bound; the set is planned for < 10

type benchRun struct {
	Scenario string   `json:"scenario"`
	Error    string   `json:"error,omitempty"`
	Summary  *Summary `json:"summary,omitempty"`
}

type benchReport struct {
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt time.Time  `json:"finished_at"`
	TookS      float64    `json:"took_s"`
	Commit     string     `json:"commit"`
	Command    string     `json:"command"`
	Host       Host       `json:"host"`
	Runs       []benchRun `json:"runs"`
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
	stopWarm, err := ensureServer(ctx, &base, u.String())
	if err != nil {
		return err
	}
	defer stopWarm()
	fx, coldHot, err := benchSetup(ctx, &base, u.String())
	if err != nil {
		return err
	}
	var errs []error
	for _, st := range benchSteps {
		if st.scenario == "coldstart" {
			stopWarm() // the warm server this tool started must not share the cores
			stopWarm = func() {}
		}
		r := runBenchStep(ctx, base, st, fx, coldHot, rep.Commit)
		if r.Error != "" {
			errs = append(errs, fmt.Errorf("%s: %s", st.scenario, r.Error))
		}
		rep.Runs = append(rep.Runs, r)
	}
	rep.FinishedAt = time.Now()
	rep.TookS = round(rep.FinishedAt.Sub(rep.StartedAt).Seconds(), 1)
	if err := writeJSON(benchJSONPath(&base), rep); err != nil {
		errs = append(errs, err)
	}
	base.Log.Info("bench finished", "took", time.Since(rep.StartedAt).Round(time.Second), "json", benchJSONPath(&base))
	return errors.Join(errs...)
}

// benchSetup builds the shared fixture and the cold start's hot guides
// (created now, while a warm server answers).
func benchSetup(ctx context.Context, base *Config, target string) (*fixture, []*hotGuide, error) {
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
		return nil, nil, fmt.Errorf("bench setup: %w", err)
	}
	hot, err := createHotGuides(sctx, c, fx.users, loadScenarios["mixed"].hot)
	if err != nil {
		return nil, nil, fmt.Errorf("bench setup: cold start hot guides: %w", err)
	}
	return fx, hot, nil
}

func runBenchStep(ctx context.Context, base Config, st benchStep, fx *fixture, coldHot []*hotGuide, commit string) benchRun {
	c := base
	c.Scenario, c.StartServer, c.fx = st.scenario, "never", fx
	c.Rate, c.VUs, c.Duration = 0, 0, 0
	c.LikeSettle = 5 * time.Second
	st.set(&c)
	if st.scenario == "coldstart" {
		c.hot = coldHot
	}
	c.Log.Info("bench step", "scenario", st.scenario)
	sum, err := run(ctx, c)
	r := benchRun{Scenario: st.scenario}
	if err != nil {
		r.Error = err.Error()
	}
	if sum.Scenario == "" {
		return r
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

func benchJSONPath(c *Config) string {
	if c.BenchJSON != "" {
		return c.BenchJSON
	}
	return filepath.Join(filepath.Dir(c.Benchmarks), "BENCHMARKS.json")
}
