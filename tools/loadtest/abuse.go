package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AbuseSummary sets the well-behaved users' numbers under attack beside
// the same load without it, on one setup and one server: the mixed door's
// (when it ran) and each side door's.
type AbuseSummary struct {
	Mixed    bool          `json:"mixed"`    // the mixed door ran: the fields below up to Attacker are its
	Baseline AbusePhase    `json:"baseline"` // the load alone
	Attacked AbusePhase    `json:"attacked"` // the same load while the attacker runs
	P95Ratio float64       `json:"p95_ratio"`
	GoalMet  bool          `json:"goal_met"` // p95 within 1.5× and under 1 % errors
	Attacker AttackSummary `json:"attacker"`
	Doors    []DoorResult  `json:"doors,omitempty"`
}

// AbusePhase is one half's well-behaved traffic.
type AbusePhase struct {
	Requests    int            `json:"requests"`
	RatePerS    float64        `json:"rate_per_s"`
	ErrorRate   float64        `json:"error_rate"`
	Latency     Latency        `json:"latency_ms"`
	StatusCodes map[string]int `json:"status_codes"`
}

// AttackSummary is what the attacker sent and how the server answered,
// by activity and status ("0": no answer).
type AttackSummary struct {
	Config     attackConfig              `json:"config"`
	Accounts   int                       `json:"accounts"`
	Seconds    float64                   `json:"seconds"`
	LoginsPerS float64                   `json:"logins_per_s"` // answered wrong-password log-ins
	Answers    map[string]map[string]int `json:"answers"`
}

func abusePhase(s Summary) AbusePhase {
	t := s.Totals
	return AbusePhase{Requests: t.Requests, RatePerS: t.RatePerS, ErrorRate: round(1-t.SuccessRate, 5),
		Latency: t.Latency, StatusCodes: t.StatusCodes}
}

// runAbuse runs the doors of -abuse-doors. The mixed door runs the mixed
// load twice on one setup: alone, then while an attacker runs slow
// uploads, a flood of wrong-password log-ins and a stream of hostile
// files; the summary is its attacked half's. The side doors follow
// (runDoors); without the mixed door the summary's totals are the probe's
// attacked halves.
func runAbuse(ctx context.Context, cfg *Config, d *scenarioDef, base string, fx *fixture, hot []*hotGuide, setup SetupInfo) (Summary, error) {
	atk := newAttacker(base, cfg.Attack)
	if err := atk.prepare(ctx, strconv.FormatInt(time.Now().UnixNano(), 36)); err != nil {
		return Summary{}, err
	}
	a := &AbuseSummary{Attacker: AttackSummary{Config: cfg.Attack, Accounts: len(atk.tokens)}}
	var under Summary
	var err error
	if slices.Contains(cfg.Attack.Doors, mixedDoor) {
		under, err = runMixedDoor(ctx, cfg, d, base, fx, hot, atk, setup, a)
		if err != nil {
			under.Abuse, under.Scenario = a, "abuse"
			return under, err
		}
	}
	all := newRecorder(time.Now())
	a.Doors, err = runDoors(ctx, cfg, base, atk, fx, all)
	if !a.Mixed {
		under = doorsSummary(cfg, base, setup, all)
		under.Notes = append(under.Notes, fx.notes...)
	}
	under.Abuse = a
	under.Scenario = "abuse"
	return under, err
}

// runMixedDoor is the mixed load alone, then beside the attacker.
func runMixedDoor(ctx context.Context, cfg *Config, d *scenarioDef, base string, fx *fixture, hot []*hotGuide, atk *attacker, setup SetupInfo, a *AbuseSummary) (Summary, error) {
	cfg.Log.Info("abuse: baseline half, no attacker", "duration", cfg.Duration)
	alone, err := measure(ctx, cfg, d, base, fx, hot, setup)
	if err != nil {
		return alone, fmt.Errorf("abuse: baseline: %w", err)
	}
	c := &client{base: base, hc: newHTTPClient(cfg.Timeout, 64), rec: newRecorder(time.Now())}
	defer c.hc.CloseIdleConnections()
	if hot, err = createHotGuides(ctx, c, fx.users, cfg.HotGuides); err != nil {
		return alone, fmt.Errorf("abuse: hot guides: %w", err)
	}
	cfg.Log.Info("abuse: attacked half", "attack", fmt.Sprintf("%+v", cfg.Attack), "attacker_accounts", len(atk.tokens))
	// The attacked half does not wait for its photos: the attacker stops
	// with the load, and the comparison is about the answers.
	attacked := *cfg
	attacked.Drain = 0
	atk.run(ctx)
	under, err := measure(ctx, &attacked, d, base, fx, hot, setup)
	a.Mixed, a.Attacker = true, atk.stop()
	a.Baseline, a.Attacked = abusePhase(alone), abusePhase(under)
	if p := a.Baseline.Latency.P95; p > 0 {
		a.P95Ratio = round(a.Attacked.Latency.P95/p, 2)
	}
	a.GoalMet = a.P95Ratio > 0 && a.P95Ratio <= 1.5 && a.Attacked.ErrorRate < 0.01
	return under, err
}

// doorsSummary is a run of side doors only: the probe's attacked halves,
// all doors together.
func doorsSummary(cfg *Config, base string, setup SetupInfo, all *recorder) Summary {
	s := Summary{Scenario: "abuse", Target: base, StartedAt: all.t0, FinishedAt: time.Now(), Command: cfg.CommandLine,
		Host: hostInfo(), Setup: setup, Worker: WorkerInfo{State: cmp.Or(cfg.workerState, "unknown")}}
	dur := time.Duration(len(cfg.Attack.sideDoors())) * cfg.Attack.DoorTime // the attacked halves'
	all.fill(&s, dur)
	s.Load = LoadInfo{Model: "open", Rate: cfg.Attack.ProbeRate, DurationS: dur.Seconds(), ActualS: round(dur.Seconds(), 3)}
	s.Timeline = nil // the halves are spread over the whole run
	return s
}

// abuseColumns are the abuse row's own numbers; the head columns are the
// mixed door's attacked half's (without it, the probe's attacked halves').
var abuseColumns = []column{
	{"Baseline p95 ms", mixedOnly(func(a *AbuseSummary) string { return f1(a.Baseline.Latency.P95) })},
	{"p95 ×", mixedOnly(func(a *AbuseSummary) string { return f2(a.P95Ratio) })},
	{"Errors % (base/attacked)", mixedOnly(func(a *AbuseSummary) string {
		return f2(100*a.Baseline.ErrorRate) + " / " + f2(100*a.Attacked.ErrorRate)
	})},
	{"Attacker", mixedOnly(func(a *AbuseSummary) string {
		t := a.Attacker
		return fmt.Sprintf("%d slow uploads %v; %.0f logins/s %v; crafted %v; honest logins %v",
			t.Config.SlowUploads, t.Answers["slow_upload"], t.LoginsPerS, t.Answers["login"],
			t.Answers["crafted_upload"], t.Answers["honest_login"])
	})},
	{"Side doors: probe p95 alone → attacked (×), 5xx, attacker's answers", func(s *Summary) string {
		if len(s.Abuse.Doors) == 0 {
			return "n/a"
		}
		lines := make([]string, len(s.Abuse.Doors))
		for i, r := range s.Abuse.Doors {
			lines[i] = r.line()
		}
		return strings.Join(lines, "<br>")
	}},
}

// mixedOnly is "n/a" when the mixed door did not run.
func mixedOnly(f func(*AbuseSummary) string) func(*Summary) string {
	return func(s *Summary) string {
		if !s.Abuse.Mixed {
			return "n/a"
		}
		return f(s.Abuse)
	}
}
