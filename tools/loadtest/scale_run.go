package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

// scaleOne measures one database (its guides counted before, so the few
// hot guides the like storm adds do not count): warm map reads, tiles, memory, the like
// storm and the steps' ceiling on one server, then nearby and tiles each
// on a fresh server with Redis emptied.
func scaleOne(ctx context.Context, base Config, db scaleDB) ScaleRow {
	row := ScaleRow{Label: db.Label}
	fail := func(what string, err error) { row.Errors = append(row.Errors, what+": "+err.Error()) }
	var err error
	if row.Guides, row.DBBytes, err = dbFacts(ctx, db.URL); err != nil {
		fail("database", err)
		return row
	}
	c, err := scaleConfigFor(base, db)
	if err != nil {
		fail("address", err)
		return row
	}
	c.Users = max(c.Users, 1000) // the like storm's 1,000 users
	if err := runOnce(ctx, c.ServerBin, "migrate", serverLogPath(&c, "scale-migrate-"+db.Label)); err != nil {
		fail("migrate", err)
		return row
	}
	if err := scaleWarm(ctx, &c, &row); err != nil {
		fail("warm", err)
	}
	for _, scen := range []string{"nearby", "tiles"} {
		if err := scaleCold(ctx, &c, scen, &row); err != nil {
			fail("cold "+scen, err)
		}
	}
	return row
}

// scaleServer empties Redis and starts a fresh `serve` (no worker: no
// scenario here uploads) at c.Target, env added to its environment.
func scaleServer(ctx context.Context, c *Config, name string, env ...string) (*fleet, error) {
	if err := flushRedis(ctx); err != nil {
		return nil, err
	}
	addr, _ := hostPort(c.Target)
	p, err := startServer(c.ServerBin, "serve", addr, serverLogPath(c, name), env...)
	if err != nil {
		return nil, err
	}
	if _, err := waitReady(ctx, c.Target, p, c.ReadyTimeout, 10*time.Millisecond); err != nil {
		p.stop(20 * time.Second)
		return nil, err
	}
	return &fleet{cfg: c, addr: addr, api: p}, nil
}

// scaleConfigFor points base at db: DATABASE_URL for every process
// started from now on, and a free loopback address for the server.
func scaleConfigFor(base Config, db scaleDB) (Config, error) {
	os.Setenv("DATABASE_URL", db.URL)
	addr, err := freeLoopbackAddr()
	if err != nil {
		return base, err
	}
	base.Target, base.StartServer, base.Benchmarks = "http://"+addr, "never", ""
	return base, nil
}

// scaleReady starts a fresh server (scaleServer, with env), signs up the
// fixture's users on it and runs warm of unrecorded nearby load: c then
// points at that server, which the caller stops.
func scaleReady(ctx context.Context, c *Config, name, label string, warm time.Duration, env ...string) (*fleet, error) {
	procs, err := scaleServer(ctx, c, name, env...)
	if err != nil {
		return nil, err
	}
	c.procs, c.workerState = procs, "none"
	cl := &client{base: c.Target, hc: newHTTPClient(c.Timeout, 64), rec: newRecorder(time.Now())}
	c.fx, err = buildFixture(ctx, c, needs{}, cl)
	cl.hc.CloseIdleConnections()
	if err == nil && warm > 0 {
		_, err = scaleStep(ctx, *c, "nearby", label+"-warmup", func(s *Config) { s.Duration, s.NoWrite = warm, true })
	}
	if err != nil {
		procs.stop()
		return nil, err
	}
	return procs, nil
}

// scaleWarm is the warm half: one server for nearby (after an unrecorded
// warm-up), tiles (which fetches its trace once before the clock), the
// memory it then holds, the like storm and the climb.
func scaleWarm(ctx context.Context, c *Config, row *ScaleRow) error {
	procs, err := scaleReady(ctx, c, "scale-warm-"+row.Label, row.Label, c.Scale.Warm)
	if err != nil {
		return err
	}
	defer procs.stop()
	s, err := scaleStep(ctx, *c, "nearby", row.Label, nil)
	if err != nil {
		return err
	}
	row.Warm.Nearby, row.Warm.Viewport = s.Kinds["nearby"].Latency.P95, s.Kinds["bbox"].Latency.P95
	if s, err = scaleStep(ctx, *c, "tiles", row.Label, func(s *Config) { s.Rate = c.Scale.TileRate }); err != nil {
		return err
	}
	row.Warm.Tiles = s.Totals.Latency.P95
	row.RSSBytes = vmRSS(procs.api.cmd.Process.Pid)
	if s, err = scaleStep(ctx, *c, "likes", row.Label, func(s *Config) { s.Rate, s.VUs, s.Think = 0, 1000, 0 }); err != nil {
		return err
	}
	row.LikesP95 = s.Totals.Latency.P95
	if s.Likes != nil && s.Load.ActualS > 0 {
		row.LikesRecordedPerS = round(float64(s.Likes.Recorded)/s.Load.ActualS, 1)
	}
	s, err = scaleStep(ctx, *c, "steps", row.Label, func(s *Config) {
		s.Rate, s.Duration, s.StepsOn, s.StepStart, s.StepMax, s.StepRefine = 0, 0, "nearby", 20, 10240, 2
	})
	if s.Steps != nil {
		row.Ceiling = s.Steps.Ceiling()
	}
	return err
}

// scaleCold loads a fresh server, Redis emptied, the moment it answers.
func scaleCold(ctx context.Context, c *Config, scen string, row *ScaleRow) error {
	procs, err := scaleServer(ctx, c, "scale-cold-"+scen+"-"+row.Label)
	if err != nil {
		return err
	}
	defer procs.stop()
	cc := *c
	cc.procs, cc.tilesCold = procs, true
	s, err := scaleStep(ctx, cc, scen, row.Label+"-cold", func(s *Config) {
		if scen == "tiles" {
			s.Rate = c.Scale.TileRate
		}
	})
	if scen == "tiles" {
		row.Cold.Tiles = s.Totals.Latency.P95
	} else {
		row.Cold.Nearby, row.Cold.Viewport = s.Kinds["nearby"].Latency.P95, s.Kinds["bbox"].Latency.P95
	}
	return err
}

// scaleStep runs one scenario on the server c points at, its outputs
// under <out>/<stamp>-<scenario> as any run's (no BENCHMARKS.md row).
func scaleStep(ctx context.Context, c Config, scen, label string, set func(*Config)) (Summary, error) {
	c.Scenario = scen
	if set != nil {
		set(&c)
	}
	c.Log.Info("scale: step", "size", label, "scenario", scen)
	sum, err := run(ctx, c)
	if err != nil {
		return sum, fmt.Errorf("%s: %w", scen, err)
	}
	sum.Notes = append(sum.Notes, "scale: "+label)
	return sum, writeOutputs(&c, &sum)
}
