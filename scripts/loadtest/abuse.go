package main

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// AbuseSummary sets the well-behaved users' numbers under attack beside
// the same load without it, on one setup and one server.
type AbuseSummary struct {
	Baseline AbusePhase    `json:"baseline"` // the load alone
	Attacked AbusePhase    `json:"attacked"` // the same load while the attacker runs
	P95Ratio float64       `json:"p95_ratio"`
	GoalMet  bool          `json:"goal_met"` // p95 within 1.5× and under 1 % errors
	Attacker AttackSummary `json:"attacker"`
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

// runAbuse runs the mixed load twice on one setup: alone, then while an
// attacker runs slow uploads, a flood of wrong-password log-ins and a
// stream of hostile files. The summary is the attacked half's, with the
// comparison in Abuse.
func runAbuse(ctx context.Context, cfg *Config, d *scenarioDef, base string, fx *fixture, hot []*hotGuide, setup SetupInfo) (Summary, error) {
	atk := newAttacker(base, cfg.Attack)
	if err := atk.prepare(ctx, strconv.FormatInt(time.Now().UnixNano(), 36)); err != nil {
		return Summary{}, err
	}
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
	attack := atk.stop()
	a := &AbuseSummary{Baseline: abusePhase(alone), Attacked: abusePhase(under), Attacker: attack}
	if p := a.Baseline.Latency.P95; p > 0 {
		a.P95Ratio = round(a.Attacked.Latency.P95/p, 2)
	}
	a.GoalMet = a.P95Ratio > 0 && a.P95Ratio <= 1.5 && a.Attacked.ErrorRate < 0.01
	under.Abuse = a
	under.Scenario = "abuse"
	return under, err
}

// abuseColumns are the abuse row's own numbers; the head columns are the
// attacked half's.
var abuseColumns = []column{
	{"Baseline p95 ms", func(s *Summary) string { return f1(s.Abuse.Baseline.Latency.P95) }},
	{"p95 ×", func(s *Summary) string { return f2(s.Abuse.P95Ratio) }},
	{"Errors % (base/attacked)", func(s *Summary) string {
		return f2(100*s.Abuse.Baseline.ErrorRate) + " / " + f2(100*s.Abuse.Attacked.ErrorRate)
	}},
	{"Attacker", func(s *Summary) string {
		a := s.Abuse.Attacker
		return fmt.Sprintf("%d slow uploads %v; %.0f logins/s %v; crafted %v; honest logins %v",
			a.Config.SlowUploads, a.Answers["slow_upload"], a.LoginsPerS, a.Answers["login"],
			a.Answers["crafted_upload"], a.Answers["honest_login"])
	}},
}
