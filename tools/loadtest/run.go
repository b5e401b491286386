package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// run executes one scenario against cfg.Target and returns its summary. It
// writes nothing (execute does), so a test can drive any scenario for a few
// seconds against a base URL. Everything is bounded by cfg.hardDeadline().
func run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Scenario == "bench" {
		return Summary{}, errors.New("bench runs several scenarios: use runBench")
	}
	if err := cfg.resolve(); err != nil {
		return Summary{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.hardDeadline())
	defer cancel()
	if cfg.Scenario == "coldstart" {
		return runColdStart(ctx, &cfg)
	}
	base, err := checkTarget(cfg.Target, cfg.AllowRemote)
	if err != nil {
		return Summary{}, err
	}
	for _, a := range cfg.Also {
		if _, err := checkTarget(a, cfg.AllowRemote); err != nil {
			return Summary{}, fmt.Errorf("-also: %w", err)
		}
	}
	procs, err := ensureServer(ctx, &cfg, base.String())
	if err != nil {
		return Summary{}, err
	}
	defer procs.stop()
	if procs != nil {
		cfg.procs, cfg.workerState = procs, "running"
	}
	d, _ := cfg.def()
	fx, hot, setup, err := prepare(ctx, &cfg, d, base.String())
	if err != nil {
		return Summary{}, err
	}
	switch cfg.Scenario {
	case "abuse":
		return runAbuse(ctx, &cfg, d, base.String(), fx, hot, setup)
	case "tiles":
		return runTiles(ctx, &cfg, d, base.String(), fx, setup)
	}
	return measure(ctx, &cfg, d, base.String(), fx, hot, setup)
}

// prepare builds (or reuses) the fixture and creates the run's hot guides.
func prepare(ctx context.Context, cfg *Config, d *scenarioDef, base string) (*fixture, []*hotGuide, SetupInfo, error) {
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, cfg.SetupTimeout)
	defer cancel()
	srec := newRecorder(start)
	c := &client{base: base, hc: newHTTPClient(cfg.Timeout, 64), rec: srec, forwardUsers: cfg.Scenario == "abuse"}
	defer c.hc.CloseIdleConnections()
	fx, err := cfg.fx, error(nil)
	if fx == nil {
		cfg.Log.Info("setup", "users", cfg.Users, "seed_guides", cfg.SeedGuides, "photos", d.photos)
		if fx, err = buildFixture(sctx, cfg, needs{guides: d.guides, photos: d.photos}, c); err != nil {
			return nil, nil, SetupInfo{}, fmt.Errorf("setup: %w", err)
		}
	}
	hot := cfg.hot
	if hot == nil && cfg.HotGuides > 0 {
		if hot, err = createHotGuides(sctx, c, fx.users, cfg.HotGuides); err != nil {
			return nil, nil, SetupInfo{}, fmt.Errorf("setup: hot guides: %w", err)
		}
	}
	si := setupInfo(fx, hot, srec, time.Since(start))
	si.SharedFromBench = cfg.fx != nil
	return fx, hot, si, nil
}
