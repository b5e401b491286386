package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// optDuration is a duration flag whose zero state is "the scenario's
// default" (unset), so -ramp 0 can still mean "no ramp".
type optDuration struct{ d *time.Duration }

func (o optDuration) String() string {
	if o.d == nil || *o.d == unset {
		return ""
	}
	return o.d.String()
}

func (o optDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("negative duration %s", s)
	}
	*o.d = v
	return nil
}

// mbList parses "0.5,2,4" (MB, 10^6 bytes) into byte sizes.
type mbList struct{ sizes *[]int }

func (m mbList) String() string {
	if m.sizes == nil {
		return ""
	}
	parts := make([]string, len(*m.sizes))
	for i, n := range *m.sizes {
		parts[i] = strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (m mbList) Set(s string) error {
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v <= 0 || v > 100 {
			return fmt.Errorf("photo size %q: want MB between 0 and 100", p)
		}
		out = append(out, int(v*1e6))
	}
	*m.sizes = out
	return nil
}

const usageHead = `guidepost-load: load generator for the guidepost API.

Usage: bin/loadtest <scenario> [flags]

Scenarios:
  upload     photo uploads; accepted/s vs ready/s, drain time, queue depth
  read       GET /v1/guides/{id} over a Zipf-popular pool
  nearby     radius (500 m–5 km) and viewport queries over Seoul, Busan, Jeju, sparse areas
  mixed      70 % reads, 20 % likes/unlikes, 10 % uploads, ramping to 300 VUs
  likes      1,000 VUs double-tapping like on a few hot guides; lost/duplicated likes
  tiles      500 req/s of vector tiles from 300 panning and zooming map sessions, revalidating
             with If-None-Match; warm p95 beside a gin floor serving the same bytes, 304 share
  steps      arrival rate doubling per -step (5, 10, 20 …) on -on while steps hold, then refined;
             reports the ceiling (the highest rate held)
  coldstart  starts a fresh 'guidepost serve', 200 req/s of -on (mixed) as soon as /readyz answers;
             -cold-floor compares with a fresh server whose cache is off
  abuse      doors (-abuse-doors), each measured alone then attacked: mixed (200 VUs beside slow
             uploads, a log-in flood, hostile files), then side doors measured by a probe from
             127.0.0.2 (idle JSON bodies, upgrade/password flood, world clusters, refresh flood,
             direct-upload flood); the server must trust 127.0.0.1 as a proxy (HTTP_TRUSTED_PROXIES)
  bench      the standard set with short durations (make bench), < 10 min on 2 cores

Flags:
`

// parseFlags reads `<scenario> [flags]` (flags may also come first).
func parseFlags(args []string, stderr io.Writer) (Config, error) {
	cfg := defaultConfig()
	fs := flag.NewFlagSet("guidepost-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageHead); fs.PrintDefaults() }
	bindFlags(fs, &cfg)
	bindScaleFlags(fs, &cfg)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cfg.Scenario, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if cfg.Scenario == "" && fs.NArg() > 0 {
		cfg.Scenario = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return cfg, err
		}
	}
	if cfg.Scenario == "" {
		fs.Usage()
		return cfg, fmt.Errorf("no scenario given")
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.Scenario == "bench" && !set["start-server"] {
		cfg.StartServer = "auto" // make bench is one command: start a dev server if none answers
	}
	return cfg, nil
}

func bindFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.Target, "target", c.Target, "API base URL (loopback only unless -allow-remote)")
	fs.Func("also", "more API base URLs of the same deployment, comma-separated: users are spread over -target and these", func(v string) error {
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				c.Also = append(c.Also, strings.TrimSuffix(u, "/"))
			}
		}
		return nil
	})
	fs.BoolVar(&c.AllowRemote, "allow-remote", false, "allow a non-loopback target")
	fs.Float64Var(&c.Rate, "rate", 0, "open loop: arrivals per second (default: per scenario)")
	fs.IntVar(&c.VUs, "vus", 0, "closed loop: concurrent virtual users (default: per scenario)")
	fs.DurationVar(&c.Duration, "duration", 0, "load duration (default: per scenario; steps: a bound on the climb)")
	fs.Var(optDuration{&c.Ramp}, "ramp", "closed loop: time to start all VUs (default: per scenario)")
	fs.Var(optDuration{&c.Think}, "think", "closed loop: mean pause between iterations, ±50 % (default: per scenario)")
	fs.IntVar(&c.Users, "users", c.Users, "guest users to create (at least 200 and -vus)")
	fs.IntVar(&c.SeedGuides, "seed-guides", 0, "guides to create through the API before the load")
	fs.Uint64Var(&c.Seed, "seed", 1, "nearby, coldstart: seed of the request trace (arrival n sends the same request in every run with this seed)")
	fs.IntVar(&c.HotGuides, "hot-guides", 0, "fresh guides whose likes are verified (default: likes 5, mixed 20)")
	fs.Var(mbList{&c.PhotoSizes}, "photo-sizes", "generated JPEG sizes in MB, comma-separated")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "per-request timeout")
	fs.DurationVar(&c.SetupTimeout, "setup-timeout", c.SetupTimeout, "bound on setup (signups, seeding)")
	fs.Var(optDuration{&c.Drain}, "drain", "bound on waiting for accepted uploads to be ready (default: 2m; coldstart 0)")
	fs.DurationVar(&c.PollEvery, "poll", c.PollEvery, "media status poll and like read-back interval")
	fs.DurationVar(&c.LikeSettle, "like-settle", c.LikeSettle, "bound on waiting for like counts to match")
	fs.IntVar(&c.MaxInflight, "max-inflight", c.MaxInflight, "open loop: iterations in flight before arrivals are dropped (and counted)")
	fs.StringVar(&c.StepsOn, "on", c.StepsOn, "steps, coldstart: the scenario to run (read, nearby, mixed, upload, likes; default: steps nearby, coldstart mixed)")
	fs.DurationVar(&c.StepLen, "step", c.StepLen, "steps: length of each step")
	fs.Float64Var(&c.StepStart, "step-start", c.StepStart, "steps: rate of the first step")
	fs.Float64Var(&c.StepMax, "step-max", c.StepMax, "steps: hard cap of the rate, which doubles from -step-start while steps hold")
	fs.IntVar(&c.StepRefine, "step-refine", c.StepRefine, "steps: after the first failing step, rates tried between the highest held and the lowest failed")
	fs.BoolVar(&c.StepContinue, "step-continue", false, "steps: run every doubling step up to -step-max, failing or not (no refining)")
	fs.StringVar(&c.ServerBin, "server-bin", c.ServerBin, "guidepost binary (coldstart, -start-server)")
	fs.StringVar(&c.ColdAddr, "cold-addr", "", "coldstart: listen address of the fresh server (default: a free loopback port)")
	fs.StringVar(&c.ColdDatabase, "cold-database", "", "coldstart: DATABASE_URL of the fresh server (default: the environment's); users are created in it")
	fs.BoolVar(&c.ColdFloor, "cold-floor", false, "coldstart: first run the same load on a fresh server with GUIDES_CACHE=off, and compare")
	fs.StringVar(&c.ColdReplicas, "cold-replicas", "", "coldstart: DATABASE_REPLICA_URLS of the measured server; the same load first runs on the primary alone, to compare")
	fs.StringVar(&c.PrimaryData, "primary-data", "", "coldstart: the primary's data directory; each run reports the primary cluster's CPU seconds")
	fs.DurationVar(&c.ReadyTimeout, "ready-timeout", c.ReadyTimeout, "bound on waiting for /readyz")
	fs.StringVar(&c.StartServer, "start-server", c.StartServer, "never | auto | always: run '<server-bin> dev' at the target (bench: auto)")
	fs.StringVar(&c.Out, "out", c.Out, "output folder (summary.json, report.html)")
	fs.StringVar(&c.Benchmarks, "benchmarks", c.Benchmarks, "Markdown file to append the result row to ('' to skip)")
	fs.IntVar(&c.Attack.SlowUploads, "abuse-slow-uploads", c.Attack.SlowUploads, "abuse: upload bodies the attacker keeps trickling")
	fs.IntVar(&c.Attack.SlowRate, "abuse-slow-rate", c.Attack.SlowRate, "abuse: bytes/s of each slow body")
	fs.Float64Var(&c.Attack.LoginsPerS, "abuse-logins", c.Attack.LoginsPerS, "abuse: wrong-password log-ins per second")
	fs.Float64Var(&c.Attack.CraftedEvery, "abuse-crafted-every", c.Attack.CraftedEvery, "abuse: seconds between hostile file uploads (0: none)")
	fs.IntVar(&c.Attack.Scans, "abuse-scans", c.Attack.Scans, "abuse: scans in the scan-bomb JPEG (real encoders write ~10)")
	fs.Func("abuse-doors", "abuse: doors to run, comma-separated, of "+strings.Join(doorOrder, ",")+" (default: all)", func(v string) error {
		c.Attack.Doors = nil
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				c.Attack.Doors = append(c.Attack.Doors, d)
			}
		}
		return nil
	})
	fs.DurationVar(&c.Attack.DoorTime, "abuse-door-duration", c.Attack.DoorTime, "abuse: each half of each side door (the probe alone, then attacked)")
	fs.Float64Var(&c.Attack.ProbeRate, "abuse-probe-rate", c.Attack.ProbeRate, "abuse: the well-behaved probe's requests per second (nearby, viewport, tile, log-in)")
	fs.IntVar(&c.Attack.IdleConns, "abuse-idle-conns", c.Attack.IdleConns, "abuse idle-body: connections holding an idle JSON body")
	fs.IntVar(&c.Attack.UploadFloods, "abuse-upload-floods", c.Attack.UploadFloods, "abuse upload-flood: the guest's direct uploads at once")
	fs.Float64Var(&c.Attack.UpgradesPerS, "abuse-upgrades", c.Attack.UpgradesPerS, "abuse upgrade-flood: upgrades and password changes per second")
	fs.IntVar(&c.Attack.ClusterConc, "abuse-clusters", c.Attack.ClusterConc, "abuse world-clusters: world cluster requests at once")
	fs.Float64Var(&c.Attack.RefreshesPerS, "abuse-refreshes", c.Attack.RefreshesPerS, "abuse refresh-flood: refreshes per second")
	fs.IntVar(&c.Attack.DoorMax, "abuse-door-max", c.Attack.DoorMax, "abuse: at most this many requests per side-door attack")
	fs.BoolVar(&c.Attack.Floors, "abuse-floors", c.Attack.Floors, "abuse: a third half beside the floor of refresh-flood and upload-flood (abuse_floor.go)")
	fs.StringVar(&c.BenchJSON, "bench-json", "", "bench: raw JSON of the run (default: BENCHMARKS.json next to -benchmarks)")
}
