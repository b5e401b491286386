package main

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Config is one run of the tool. Zero values and `unset` fields take the
// scenario's defaults in resolve, so tests can fill only what they need.
type Config struct {
	Scenario    string
	Target      string   // base URL of the API
	Also        []string // more API processes of the same deployment; the load is spread over all
	AllowRemote bool

	Rate     float64       // open loop: arrivals per second
	VUs      int           // closed loop: concurrent virtual users
	Duration time.Duration // load phase
	Ramp     time.Duration // closed loop: time to start all VUs
	Think    time.Duration // closed loop: mean pause between iterations

	Users      int    // guest accounts to create (at least minUsers and VUs)
	SeedGuides int    // guides to create before the load
	Seed       uint64 // nearby: the trace's seed (same seed, same requests)
	HotGuides  int    // fresh guides whose likes are verified
	PhotoSizes []int  // bytes per generated JPEG

	Timeout      time.Duration // per request
	SetupTimeout time.Duration // signups, seeding, photo generation
	Drain        time.Duration // bound on waiting for uploads to become ready
	PollEvery    time.Duration // media status and like read-back interval
	LikeSettle   time.Duration // bound on waiting for like counts to match
	MaxInflight  int           // open loop: concurrent iterations before arrivals are dropped

	StepsOn      string // steps, coldstart: the scenario whose action is run ("": nearby for steps, mixed for coldstart)
	StepLen      time.Duration
	StepStart    float64
	StepMax      float64 // steps: hard cap of the doubling
	StepRefine   int     // steps: rates tried between the highest held and the lowest failed
	StepContinue bool    // steps: run every doubling step, judged or not

	ServerBin    string // coldstart / -start-server: the guidepost binary
	ColdAddr     string // coldstart: listen address ("" picks a free loopback port)
	ColdDatabase string // coldstart: DATABASE_URL of the fresh server ("": the environment's)
	ColdFloor    bool   // coldstart: first the same load on a fresh server with GUIDES_CACHE=off
	// ColdReplicas (coldstart) are DATABASE_REPLICA_URLS for the measured
	// server; the same load first runs on a fresh server on the primary
	// alone, to compare.
	ColdReplicas string
	// PrimaryData (coldstart) is the primary's data directory: each run
	// reports the primary cluster's CPU seconds.
	PrimaryData  string
	ReadyTimeout time.Duration
	StartServer  string // never | auto | always: run `<bin> dev` at the target

	Out        string // folder for summary.json and report.html
	Benchmarks string // BENCHMARKS.md to append a row to
	BenchJSON  string // bench: raw JSON of the run ("" = next to Benchmarks)
	ScaleJSON  string // scale: its rows; bench: charted from there ("" = BENCHMARKS-scale.json next to Benchmarks)
	Scale      scaleConfig
	NoWrite    bool // tests: write nothing

	Attack attackConfig // abuse: what the attacker does

	CommandLine string
	Log         *slog.Logger

	fx          *fixture    // shared setup (bench); nil: the run builds its own
	hot         []*hotGuide // coldstart: hot guides created before the server restarts
	procs       *fleet      // processes this tool started (their CPU is reported apart); nil: none
	tilesCold   bool        // tiles (scale): the trace right after a restart, nothing fetched before the clock
	workerState string      // WorkerInfo.State for the run
}

const (
	unset    = -1
	minUsers = 200 // the floor: many distinct users, never one shared token
)

var scenarioNames = []string{"upload", "upload-direct", "read", "nearby", "mixed", "likes", "tiles", "steps", "coldstart", "abuse", "bench", "scale"}

func defaultConfig() Config {
	return Config{
		Target: "http://127.0.0.1:8080",
		Ramp:   unset, Think: unset, Drain: unset,
		Users:        minUsers,
		PhotoSizes:   []int{500_000, 2_000_000, 4_000_000},
		Timeout:      10 * time.Second,
		SetupTimeout: 3 * time.Minute,
		PollEvery:    time.Second,
		LikeSettle:   10 * time.Second,
		MaxInflight:  5000,
		StepLen:      30 * time.Second, StepStart: 5, StepMax: 10240, StepRefine: 2,
		Scale:     scaleConfig{Warm: 15 * time.Second, TileRate: 500},
		ServerBin: "bin/guidepost", ReadyTimeout: time.Minute, StartServer: "never",
		Out: "loadtest-out", Benchmarks: "BENCHMARKS.md",
		Log: slog.New(slog.DiscardHandler),
		Attack: attackConfig{SlowUploads: 256, SlowRate: 1 << 10, LoginsPerS: 1000, CraftedEvery: 0.5, Scans: 2000,
			Doors: doorOrder, DoorTime: 20 * time.Second, ProbeRate: 20, IdleConns: 300, UploadFloods: 8,
			UpgradesPerS: 200, ClusterConc: 32, RefreshesPerS: 1000, DoorMax: 200_000, Floors: true},
	}
}

// def returns the scenario whose action and defaults the run uses.
func (c *Config) def() (*scenarioDef, error) {
	name := c.Scenario
	switch name {
	case "steps":
		name = cmp.Or(c.StepsOn, "nearby")
	case "coldstart":
		name = cmp.Or(c.StepsOn, "mixed")
	}
	d := loadScenarios[name]
	if d == nil {
		return nil, fmt.Errorf("unknown scenario %q (want one of %v)", name, scenarioNames)
	}
	return d, nil
}

// resolve fills defaults and checks the combination.
func (c *Config) resolve() error {
	d, err := c.def()
	if err != nil {
		return err
	}
	if c.Scenario == "steps" || c.Scenario == "coldstart" {
		c.StepsOn = d.name
	}
	if err := c.resolveModel(d); err != nil {
		return err
	}
	if c.Ramp == unset {
		c.Ramp = time.Duration(d.rampShare * float64(c.Duration))
	}
	if c.Think == unset {
		c.Think = d.think
	}
	if c.Drain == unset {
		c.Drain = d.drain
		if c.Scenario == "coldstart" {
			c.Drain = 0 // `serve` runs no worker: uploads stay pending by design
		}
	}
	if c.HotGuides == 0 {
		c.HotGuides = d.hot
	}
	c.Users = max(c.Users, minUsers, c.VUs)
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Scenario == "abuse" {
		if err := c.Attack.resolve(); err != nil {
			return err
		}
	}
	return c.validate(d)
}

// resolveModel picks open or closed loop and the duration.
func (c *Config) resolveModel(d *scenarioDef) error {
	if c.Rate < 0 || c.VUs < 0 {
		return errors.New("-rate and -vus must not be negative")
	}
	if c.Rate > 0 && c.VUs > 0 {
		return errors.New("give -rate (open loop) or -vus (closed loop), not both")
	}
	switch c.Scenario {
	case "steps":
		if c.Rate > 0 || c.VUs > 0 {
			return errors.New("steps sets its own rates: use -step-start, -step-max, -step")
		}
		if c.StepLen <= 0 || c.StepRefine < 0 {
			return errors.New("-step must be positive and -step-refine not negative")
		}
		// Whole doubling steps, then room for the refining ones; a given
		// -duration bounds both.
		steps := len(doublingSeries(c.StepStart, c.StepMax))
		planned := time.Duration(steps)*c.StepLen + time.Duration(c.StepRefine)*refineAllowance(c.StepLen)
		if c.Duration <= 0 || c.Duration > planned {
			c.Duration = planned
		}
		return nil
	case "coldstart":
		if c.VUs > 0 {
			return errors.New("coldstart is open loop: use -rate")
		}
		if c.Rate == 0 {
			c.Rate = 200
		}
	default:
		if c.Rate == 0 && c.VUs == 0 {
			c.Rate, c.VUs = d.rate, d.vus
		}
	}
	if c.Duration == 0 {
		c.Duration = d.duration
	}
	return nil
}

func (c *Config) validate(d *scenarioDef) error {
	var errs []error
	if c.Duration <= 0 {
		errs = append(errs, errors.New("-duration must be positive (steps: -step and -step-max give at least one step)"))
	}
	if c.Timeout <= 0 || c.PollEvery <= 0 || c.SetupTimeout <= 0 {
		errs = append(errs, errors.New("-timeout, -poll and -setup-timeout must be positive"))
	}
	if d.photos && len(c.PhotoSizes) == 0 {
		errs = append(errs, errors.New("-photo-sizes is empty"))
	}
	if c.StartServer != "never" && c.StartServer != "auto" && c.StartServer != "always" {
		errs = append(errs, fmt.Errorf("-start-server %q: want never, auto or always", c.StartServer))
	}
	if c.MaxInflight < 1 {
		errs = append(errs, errors.New("-max-inflight must be at least 1"))
	}
	return errors.Join(errs...)
}

// openLoop reports whether arrivals are paced (rate, steps, coldstart).
func (c *Config) openLoop() bool { return c.Scenario == "steps" || c.Rate > 0 }

// hardDeadline bounds the whole run: setup, load, drain and verification.
// Past it the context cancels everything still running.
func (c *Config) hardDeadline() time.Duration {
	d := c.SetupTimeout + c.Duration + c.Drain + c.LikeSettle + 2*c.Timeout + 30*time.Second
	if c.Scenario == "abuse" || c.Scenario == "tiles" { // two halves (tiles: the API, then the floor)
		d += c.Duration + c.Drain + c.LikeSettle + 30*time.Second
	}
	if c.Scenario == "abuse" {
		d += c.Attack.doorsTime(c.Drain)
	}
	if c.Scenario == "coldstart" || c.StartServer != "never" {
		d += 2*c.ReadyTimeout + 30*time.Second
	}
	return d
}
