package main

import (
	"context"
	"fmt"
	"time"
)

// runColdStart measures a freshly started `guidepost serve`: it waits for
// /readyz and at once applies the load (-on, mixed by default) open-loop at
// cfg.Rate (200/s), reporting the first minute apart. A warm server hides
// what a deploy or a crash-restart does to users. With -cold-floor the
// same load first runs on a fresh server with GUIDES_CACHE=off, the floor
// a cold cache must not fall below.
//
// Users and guides are created beforehand (they live in the database, and
// tokens survive a restart): through the running target if one answers
// and the fresh server uses the same database, else through a throw-away
// server on the same address, stopped before the measured one starts.
func runColdStart(ctx context.Context, cfg *Config) (Summary, error) {
	addr := cfg.ColdAddr
	if addr == "" {
		var err error
		if addr, err = freeLoopbackAddr(); err != nil {
			return Summary{}, err
		}
	}
	base := "http://" + addr
	if _, err := checkTarget(base, cfg.AllowRemote); err != nil {
		return Summary{}, err
	}
	d, _ := cfg.def()
	if cfg.ColdFloor && cfg.hot == nil {
		cfg.HotGuides *= 2 // the floor run likes guides of its own: the counts each run checks stay its own
	}
	if cfg.ColdReplicas != "" && cfg.hot == nil {
		cfg.HotGuides *= 2 // so does the run on the primary alone
	}
	fx, hot, setup, err := coldPrep(ctx, cfg, d, base, addr)
	if err != nil {
		return Summary{}, err
	}
	var floor *ColdFloor
	if cfg.ColdFloor {
		var floorHot []*hotGuide
		floorHot, hot = hot[:len(hot)/2], hot[len(hot)/2:]
		fs, err := coldRun(ctx, cfg, d, addr, "coldstart-cache-off", fx, floorHot, setup, "GUIDES_CACHE=off")
		if err != nil {
			return fs, fmt.Errorf("cache-off floor: %w", err)
		}
		floor = comparedRun(fs)
	}
	var alone *ColdFloor
	if cfg.ColdReplicas != "" {
		var aloneHot []*hotGuide
		aloneHot, hot = hot[:len(hot)/2], hot[len(hot)/2:]
		as, err := coldRun(ctx, cfg, d, addr, "coldstart-primary-alone", fx, aloneHot, setup, "DATABASE_REPLICA_URLS=")
		if err != nil {
			return as, fmt.Errorf("primary alone: %w", err)
		}
		alone = comparedRun(as)
	}
	sum, err := coldRun(ctx, cfg, d, addr, "coldstart-serve", fx, hot, setup)
	if alone != nil && sum.ColdStart != nil {
		if alone.Latency.P95 > 0 {
			alone.P95Ratio = round(sum.Totals.Latency.P95/alone.Latency.P95, 2)
		}
		sum.ColdStart.PrimaryAlone = alone
	}
	if floor != nil && sum.ColdStart != nil {
		if floor.Latency.P95 > 0 {
			floor.P95Ratio = round(sum.Totals.Latency.P95/floor.Latency.P95, 2)
		}
		sum.ColdStart.CacheOff = floor
	}
	return sum, err
}

// comparedRun is what a run made to compare with keeps of its summary.
func comparedRun(s Summary) *ColdFloor {
	f := &ColdFloor{Requests: s.Totals.Requests, Latency: s.Totals.Latency,
		Rejected: s.Failures.ByStatus["503"], Failures: s.Failures.ByKind, Kinds: s.Kinds, Timeline: s.Timeline}
	if s.ColdStart != nil {
		f.PrimaryCPUS, f.PrimaryCPUPerMs = s.ColdStart.PrimaryCPUS, s.ColdStart.PrimaryCPUPerMs
	}
	return f
}

// coldRun starts a fresh server (env added to the cold environment) and
// loads it the moment it is ready.
func coldRun(ctx context.Context, cfg *Config, d *scenarioDef, addr, name string, fx *fixture, hot []*hotGuide, setup SetupInfo, env ...string) (Summary, error) {
	base := "http://" + addr
	logPath := serverLogPath(cfg, name)
	if cfg.ColdReplicas != "" {
		n, err := dropCachedTiles(ctx)
		if err != nil {
			return Summary{}, fmt.Errorf("emptying the tile cache's Redis tier: %w", err)
		}
		cfg.Log.Info("coldstart: tile cache emptied in Redis", "keys", n)
	}
	p, err := startServer(cfg.ServerBin, "serve", addr, logPath, append(cfg.coldEnv(), env...)...)
	if err != nil {
		return Summary{}, err
	}
	defer p.stop(20 * time.Second)
	readyAfter, err := waitReady(ctx, base, p, cfg.ReadyTimeout, 10*time.Millisecond)
	if err != nil {
		return Summary{}, err
	}
	cfg.Log.Info("cold server ready: load starts now", "run", name, "ready_after", readyAfter.Round(time.Millisecond), "rate", cfg.Rate)
	c := *cfg
	c.procs, c.workerState = &fleet{api: p}, "none"
	cpu0 := clusterCPU(cfg.PrimaryData)
	sum, err := measure(ctx, &c, d, base, fx, hot, setup)
	sum.ColdStart = coldSummary(cfg, sum, readyAfter, addr, logPath)
	if cpu1 := clusterCPU(cfg.PrimaryData); cfg.PrimaryData != "" && cpu0 >= 0 && cpu1 >= 0 {
		sum.ColdStart.PrimaryCPUS = round(cpu1-cpu0, 3)
		if n := sum.Totals.Requests; n > 0 {
			sum.ColdStart.PrimaryCPUPerMs = round((cpu1-cpu0)*1000/float64(n), 4)
		}
	}
	return sum, err
}

// coldEnv is what the fresh servers get on top of this environment.
func (c *Config) coldEnv() []string {
	var env []string
	if c.ColdDatabase != "" {
		env = append(env, "DATABASE_URL="+c.ColdDatabase)
	}
	if c.ColdReplicas != "" {
		env = append(env, "DATABASE_REPLICA_URLS="+c.ColdReplicas)
	}
	return env
}

// coldPrep creates the fixture and hot guides before the measured start.
func coldPrep(ctx context.Context, cfg *Config, d *scenarioDef, base, addr string) (*fixture, []*hotGuide, SetupInfo, error) {
	if cfg.ColdDatabase != "" {
		cfg.fx, cfg.hot = nil, nil // the bench's users live in another database
	} else if cfg.fx != nil && (cfg.hot != nil || cfg.HotGuides == 0) { // bench made them on its warm server
		return prepare(ctx, cfg, d, base)
	}
	if target, err := checkTarget(cfg.Target, cfg.AllowRemote); err == nil && cfg.ColdDatabase == "" {
		if _, err := waitReady(ctx, target.String(), nil, time.Second, 100*time.Millisecond); err == nil {
			cfg.Log.Info("coldstart: setup through the running target", "target", target.String())
			return prepare(ctx, cfg, d, target.String())
		}
	}
	cfg.Log.Info("coldstart: setup through a temporary server", "addr", addr)
	p, err := startServer(cfg.ServerBin, "serve", addr, serverLogPath(cfg, "coldstart-prep"), cfg.coldEnv()...)
	if err != nil {
		return nil, nil, SetupInfo{}, err
	}
	defer p.stop(20 * time.Second)
	if _, err := waitReady(ctx, base, p, cfg.ReadyTimeout, 50*time.Millisecond); err != nil {
		return nil, nil, SetupInfo{}, fmt.Errorf("coldstart prep: %w", err)
	}
	return prepare(ctx, cfg, d, base)
}

// coldSummary adds what only runColdStart knows to the windows measure filled.
func coldSummary(cfg *Config, sum Summary, readyAfter time.Duration, addr, logPath string) *ColdStartSummary {
	cs := sum.ColdStart
	if cs == nil {
		cs = &ColdStartSummary{}
	}
	cs.Binary, cs.Addr, cs.ServerLog = cfg.ServerBin, addr, logPath
	cs.ReadyAfterS, cs.TargetRate = round(readyAfter.Seconds(), 3), cfg.Rate
	return cs
}

// coldWindows reports the first minute of load apart from the rest.
func coldWindows(rec *recorder, loadDur time.Duration) *ColdStartSummary {
	first := min(loadDur, time.Minute)
	cs := &ColdStartSummary{FirstMinute: rec.windowSummary(0, round(first.Seconds(), 3))}
	if rest := loadDur - first; rest > time.Second {
		w := rec.windowSummary(1, round(rest.Seconds(), 3))
		cs.After = &w
	}
	return cs
}
