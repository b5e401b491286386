package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The side doors of the abuse scenario: each is one attack, measured by a
// well-behaved client (the probe, from an address of its own) first alone
// and then while the attack runs, in the same run. "mixed" is the older
// half of the scenario: 200 users beside slow uploads, a log-in flood and
// hostile files.
const mixedDoor = "mixed"

// doorOrder is the order doors run in, whatever order -abuse-doors names
// them: the refresh flood revokes the sessions it replays and the upload
// flood leaves renders queued, so they come last.
var doorOrder = []string{mixedDoor, "idle-body", "upgrade-flood", "world-clusters", "refresh-flood", "upload-flood"}

// doorGoal is the issue's: the probe's p95 within 1.5× of its p95 alone,
// and no 5xx (nor a request left without an answer).
const doorGoal = 1.5

// doorLeadIn lets an attack take hold (connections opened, workers busy)
// before the probe's attacked half starts.
const doorLeadIn = time.Second

// DoorResult is one side door: the probe alone and under attack, and what
// the attacker got.
type DoorResult struct {
	Door     string                    `json:"door"`
	Baseline ProbePhase                `json:"baseline"`
	Attacked ProbePhase                `json:"attacked"`
	P95Ratio float64                   `json:"p95_ratio"`
	Pass     bool                      `json:"pass"`     // within doorGoal, no 5xx, every request answered
	Attacker map[string]map[string]int `json:"attacker"` // activity → status → answers ("0": none)
	Sent     int64                     `json:"attacker_requests"`
	AttackS  float64                   `json:"attack_s"`
	QuietS   float64                   `json:"quiet_wait_s,omitempty"` // waited for the photo queue before the baseline
	// CPU is where the host's cores went in the attacked half: a generator
	// hogging them is the attack's cost to this host, not the server's.
	CPU  CPUSplit `json:"cpu_attacked"`
	Note string   `json:"note,omitempty"`

	// The floor half (abuse_floor.go), for the doors this host bounds.
	Floor       *ProbePhase               `json:"floor,omitempty"`
	FloorRatio  float64                   `json:"floor_p95_ratio,omitempty"` // floor p95 / alone p95
	VsFloor     float64                   `json:"attacked_vs_floor,omitempty"`
	FloorLoad   map[string]map[string]int `json:"floor_load,omitempty"`
	FloorQuietS float64                   `json:"floor_quiet_wait_s,omitempty"`
}

// ProbePhase is the probe's traffic in one half of a door.
type ProbePhase struct {
	Requests    int                `json:"requests"`
	Latency     Latency            `json:"latency_ms"`
	KindsP95    map[string]float64 `json:"kinds_p95_ms"`
	StatusCodes map[string]int     `json:"status_codes"`
	FiveXX      int                `json:"5xx"`
	NoAnswer    int                `json:"no_answer"` // timeouts, resets: worse than a 5xx
	Dropped     int                `json:"dropped,omitempty"`
}

// doorNames checks a -abuse-doors list and puts it in doorOrder.
func doorNames(list []string) ([]string, error) {
	var out []string
	for _, d := range doorOrder {
		if slices.Contains(list, d) {
			out = append(out, d)
		}
	}
	for _, d := range list {
		if !slices.Contains(doorOrder, d) {
			return nil, fmt.Errorf("-abuse-doors: unknown door %q (want some of %s)", d, strings.Join(doorOrder, ","))
		}
	}
	return out, nil
}

// resolve puts the doors in order and checks the side doors' settings.
func (a *attackConfig) resolve() error {
	doors, err := doorNames(a.Doors)
	if err != nil {
		return err
	}
	if len(doors) == 0 {
		return fmt.Errorf("-abuse-doors: no door given (want some of %s)", strings.Join(doorOrder, ","))
	}
	a.Doors, a.DoorSeconds = doors, a.DoorTime.Seconds()
	if len(a.sideDoors()) > 0 && (a.DoorTime <= 0 || a.ProbeRate <= 0 || a.DoorMax <= 0) {
		return fmt.Errorf("-abuse-door-duration, -abuse-probe-rate and -abuse-door-max must be positive")
	}
	return nil
}

// sideDoors are the doors runDoors runs (every one but mixed).
func (a attackConfig) sideDoors() []string {
	return slices.DeleteFunc(slices.Clone(a.Doors), func(d string) bool { return d == mixedDoor })
}

// doorsTime bounds the side doors: per door two halves, the lead-in, the
// wait for a quiet queue and the attack's own slack.
func (a attackConfig) doorsTime(drain time.Duration) time.Duration {
	n := time.Duration(len(a.sideDoors()))
	floors := time.Duration(0)
	if a.Floors {
		for _, d := range a.sideDoors() {
			if doorFloors[d] != nil {
				floors += a.DoorTime + doorLeadIn + drain + 20*time.Second
			}
		}
	}
	return n*(2*a.DoorTime+doorLeadIn+drain+20*time.Second) + floors + time.Minute
}

// runDoors runs every side door in turn and returns their results. The
// probe's attacked halves are also recorded in all, for the run's totals.
func runDoors(ctx context.Context, cfg *Config, base string, atk *attacker, fx *fixture, all *recorder) ([]DoorResult, error) {
	doors := cfg.Attack.sideDoors()
	if len(doors) == 0 {
		return nil, nil
	}
	p, err := newProbe(ctx, cfg, base, fx)
	if err != nil {
		return nil, err
	}
	defer p.close()
	var out []DoorResult
	for _, door := range doors {
		r, err := runDoor(ctx, cfg, base, atk, p, door, all)
		out = append(out, r)
		cfg.Log.Info("abuse: door", "door", door, "line", r.line())
		if err != nil {
			return out, fmt.Errorf("abuse: door %s: %w", door, err)
		}
	}
	return out, nil
}

// runDoor measures the probe alone, then starts the attack, lets it take
// hold, measures the probe again and stops the attack.
func runDoor(ctx context.Context, cfg *Config, base string, atk *attacker, p *probe, door string, all *recorder) (DoorResult, error) {
	r := DoorResult{Door: door}
	r.QuietS = waitQuiet(ctx, cfg, p, base)
	cfg.Log.Info("abuse: door baseline, no attacker", "door", door, "duration", cfg.Attack.DoorTime)
	r.Baseline = p.phase(ctx, nil)
	if err := ctx.Err(); err != nil {
		return r, err
	}
	d := newDoorAttack(atk, cfg.Attack)
	// The attack stops by itself even if the probe's half overran.
	actx, cancel := context.WithTimeout(ctx, cfg.Attack.DoorTime+doorLeadIn+10*time.Second)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() { d.run(actx, door) })
	if sleepCtx(actx, doorLeadIn) {
		cfg.Log.Info("abuse: door attacked half", "door", door)
		apiPid, workerPid := cfg.procs.pids()
		m0, s0 := markCPU(apiPid, workerPid), p.serverCPU(ctx, base)
		r.Attacked = p.phase(ctx, all)
		m1, s1 := markCPU(apiPid, workerPid), p.serverCPU(ctx, base)
		r.CPU = cpuSplit(m0, m1, pick(s0 >= 0 && s1 >= 0, s1-s0, -1), cfg.workerState == "paused")
	}
	cancel()
	wg.Wait()
	r.AttackS = round(time.Since(start).Seconds(), 1)
	r.Attacker, r.Sent, r.Note = d.tally.snapshot(), d.sent.Load(), d.note
	if b := r.Baseline.Latency.P95; b > 0 {
		r.P95Ratio = round(r.Attacked.Latency.P95/b, 2)
	}
	fl := &floorLoad{cfg: cfg, accepted: r.Attacker["complete"]["202"]}
	if door == "refresh-flood" {
		fl.answer = recordRefusal(ctx, atk)
	}
	runFloor(ctx, cfg, p, door, &r, fl, atk)
	r.Pass = r.Attacked.Requests > 0 && r.P95Ratio > 0 && r.P95Ratio <= doorGoal &&
		r.Attacked.FiveXX == 0 && r.Attacked.NoAnswer == 0 || r.boundByHost()
	return r, ctx.Err()
}

// waitQuiet waits (at most -drain) for the media queue to empty, so a
// door's baseline does not measure the renders an earlier door queued.
func waitQuiet(ctx context.Context, cfg *Config, p *probe, base string) float64 {
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, cfg.Drain)
	defer cancel()
	for {
		snap, err := scrapeMetrics(wctx, p.metrics, base)
		if err != nil || !snap.hasQueue || snap.depth() == 0 || !sleepCtx(wctx, time.Second) {
			return round(time.Since(start).Seconds(), 1)
		}
	}
}

// serverCPU is the server's CPU seconds from /metrics, or -1.
func (p *probe) serverCPU(ctx context.Context, base string) float64 {
	snap, err := scrapeMetrics(ctx, p.metrics, base)
	if err != nil || !snap.hasCPU {
		return -1
	}
	return snap.cpu
}

// verdict is the door's PASS or FAIL against the goal; HOST when only
// its floor keeps it from the goal (boundByHost).
func (r DoorResult) verdict() string {
	switch {
	case r.Pass && r.P95Ratio > doorGoal:
		return "HOST"
	case r.Pass:
		return "PASS"
	}
	return "FAIL"
}

// line is the door in one line, for the log and the BENCHMARKS row.
func (r DoorResult) line() string {
	return fmt.Sprintf("%s %s: p95 %.1f → %.1f ms (×%.2f), probe 5xx %d, no answer %d; attacker sent %d: %s; cores server/worker/generator/others %s",
		r.Door, r.verdict(), r.Baseline.Latency.P95, r.Attacked.Latency.P95, r.P95Ratio,
		r.Attacked.FiveXX, r.Attacked.NoAnswer, r.Sent, tallies(r.Attacker), r.CPU.Label()) + r.floorLine()
}

// tallies writes activity → status counts: "login: 503 × 4, 429 × 2; me: …".
func tallies(m map[string]map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+": "+counts(m[k]))
	}
	if len(parts) == 0 {
		return "nothing answered"
	}
	return strings.Join(parts, "; ")
}

// doorTable is the doors as a table for the terminal.
func doorTable(doors []DoorResult) []string {
	if len(doors) == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("side doors (goal: probe p95 within %.1f×, no 5xx; HOST: the floor alone is past it, the attack within %.2f× of the floor):", doorGoal, floorGoal),
		fmt.Sprintf("  %-15s %8s %10s %7s %8s %7s %6s %9s %7s  %-28s %s", "door", "alone ms", "attacked", "×", "floor ms", "×floor", "5xx", "no answer", "verdict",
			"cores srv/wrk/gen/others", "attacker")}
	for _, r := range doors {
		floor, vs := "-", "-"
		if r.Floor != nil {
			floor, vs = fmt.Sprintf("%.1f", r.Floor.Latency.P95), fmt.Sprintf("%.2f", r.VsFloor)
		}
		out = append(out, fmt.Sprintf("  %-15s %8.1f %10.1f %7.2f %8s %7s %6d %9d %7s  %-28s sent %d: %s", r.Door, r.Baseline.Latency.P95,
			r.Attacked.Latency.P95, r.P95Ratio, floor, vs, r.Attacked.FiveXX, r.Attacked.NoAnswer, r.verdict(), r.CPU.Label(), r.Sent, tallies(r.Attacker)))
	}
	return out
}

// tally counts an attack's answers by activity and status.
type tally struct {
	mu sync.Mutex
	m  map[string]map[string]int
}

func (t *tally) add(activity string, code int) { t.addKey(activity, statusKey(code)) }

// addKey counts an outcome that is not a status ("held": still waiting
// when the attack stopped).
func (t *tally) addKey(activity, key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]map[string]int{}
	}
	if t.m[activity] == nil {
		t.m[activity] = map[string]int{}
	}
	t.m[activity][key]++
}

func (t *tally) snapshot() map[string]map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]map[string]int{}
	for a, m := range t.m {
		out[a] = map[string]int{}
		for k, n := range m {
			out[a][k] = n
		}
	}
	return out
}

// doorAttack is one side door's attacker: the attacker's accounts, its own
// tally, and a bound on the requests it may send.
type doorAttack struct {
	a     *attacker
	cfg   attackConfig
	tally tally
	sent  atomic.Int64
	note  string
}

func newDoorAttack(a *attacker, cfg attackConfig) *doorAttack {
	return &doorAttack{a: a, cfg: cfg}
}

// dropped counts an arrival the generator had no worker for.
func (d *doorAttack) dropped() { d.tally.addKey("generator", "dropped") }

// spend takes one request from the door's budget; false once it is spent.
func (d *doorAttack) spend() bool { return d.sent.Add(1) <= int64(d.cfg.DoorMax) }

func (d *doorAttack) run(ctx context.Context, door string) {
	switch door {
	case "idle-body":
		d.idleBodies(ctx)
	case "upload-flood":
		d.uploadFlood(ctx)
	case "upgrade-flood":
		d.upgradeFlood(ctx)
	case "world-clusters":
		d.worldClusters(ctx)
	case "refresh-flood":
		d.refreshFlood(ctx)
	}
	if d.sent.Load() > int64(d.cfg.DoorMax) {
		d.sent.Store(int64(d.cfg.DoorMax))
		d.note = fmt.Sprintf("the attack spent its budget of %d requests before its time", d.cfg.DoorMax)
	}
}
