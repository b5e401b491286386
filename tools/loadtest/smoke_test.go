package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// TestSmokeEveryScenarioAgainstTheRealStack runs each scenario for a few
// seconds against the real binary (API + worker) on the real PostgreSQL,
// Redis and S3 server: the tool and the server must agree on every path,
// and nothing may be lost or answered 5xx.
func TestSmokeEveryScenarioAgainstTheRealStack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real server")
	}
	// Every scenario creates hundreds of guests from 127.0.0.1.
	env := realStackEnv(t, "WORKER_CONCURRENCY=2", "RATE_GUEST_PER_IP=100000/1h", "UPLOAD_MIN_RATE_GRACE=1s")
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	srv := testkit.Start(t, env, addr, "dev")

	for _, sc := range []struct {
		name string
		tune func(*Config)
	}{
		// A handful of uploads, not as many as 4 VUs can send: the check is
		// that every accepted photo turns ready, and a backlog of a hundred
		// renders on a busy 2-core machine can outlast any fixed drain.
		{"upload", func(c *Config) { c.VUs = 2; c.Think = time.Second }},
		{"read", func(c *Config) { c.Rate = 30; c.SeedGuides = 50 }},
		{"nearby", func(c *Config) { c.Rate = 30 }},
		{"tiles", func(c *Config) { c.Rate = 60 }},
		{"mixed", func(c *Config) { c.VUs = 20 }},
		{"likes", func(c *Config) { c.VUs = 200; c.HotGuides = 2 }},
		{"steps", func(c *Config) { c.StepLen = time.Second; c.StepStart = 5; c.StepMax = 20 }},
		{"abuse", func(c *Config) {
			c.VUs = 20
			c.Attack = attackConfig{SlowUploads: 16, SlowRate: 1 << 10, LoginsPerS: 50, CraftedEvery: 1, Scans: 50,
				Doors: []string{mixedDoor}} // the side doors have their own test
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			cfg := smokeConfig(sc.name, srv.URL)
			sc.tune(&cfg)
			sum := mustRun(t, cfg)
			checkSmoke(t, sum)
			if sc.name == "abuse" {
				checkAbuseSmoke(t, sum)
			}
		})
	}
	t.Run("coldstart", func(t *testing.T) {
		cfg := smokeConfig("coldstart", "")
		cfg.Rate = 20
		cfg.ServerBin = testkit.Binary(t)
		cfg.Out = t.TempDir()
		sum := mustRunWithEnv(t, cfg, env)
		checkSmoke(t, sum)
		if sum.ColdStart == nil || sum.ColdStart.ReadyAfterS <= 0 {
			t.Fatalf("cold start not measured: %+v", sum.ColdStart)
		}
	})
}

// realStackEnv is the environment of a real server on a fresh database,
// the loadtest Redis DB and a bucket of its own, plus extra. abuse sends
// each user's own address, which the server trusts from the generator as
// from a proxy.
func realStackEnv(t *testing.T, extra ...string) []string {
	s3 := testkit.S3Config(t)
	return append([]string{
		"DATABASE_URL=" + testkit.DatabaseURL(t),
		"REDIS_URL=" + testkit.RedisURL(t, testkit.RedisDBLoadtest),
		"S3_ENDPOINT=" + s3.Endpoint, "S3_BUCKET=" + s3.Bucket,
		"S3_ACCESS_KEY=" + s3.AccessKey, "S3_SECRET_KEY=" + s3.SecretKey,
		"LOG_LEVEL=warn", "HTTP_TRUSTED_PROXIES=127.0.0.1",
	}, extra...)
}

func smokeConfig(scenario, target string) Config {
	cfg := defaultConfig()
	cfg.Scenario, cfg.Target = scenario, target
	cfg.Duration = 3 * time.Second
	cfg.Drain = 90 * time.Second
	cfg.PhotoSizes = []int{300_000}
	cfg.NoWrite = true
	cfg.Log = slog.New(slog.DiscardHandler)
	return cfg
}

func mustRun(t *testing.T, cfg Config) Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sum, err := run(ctx, cfg)
	if err != nil {
		t.Fatalf("%s: %v", cfg.Scenario, err)
	}
	return sum
}

func checkSmoke(t *testing.T, sum Summary) {
	t.Helper()
	if sum.Totals.OK == 0 {
		t.Fatalf("%s: no request succeeded: %+v", sum.Scenario, sum.Failures)
	}
	for status, n := range sum.Failures.ByStatus {
		if strings.HasPrefix(status, "5") && status != "503" || status == "0" {
			t.Errorf("%s: %d answers with status %s; samples: %v", sum.Scenario, n, status, sum.ErrorSamples)
		}
	}
	if u := sum.Uploads; u != nil && sum.Scenario != "coldstart" {
		// Under attack the hostile files hold the worker (decode bounds are
		// another change's), so abuse's photos may still be pending.
		if u.Accepted == 0 || u.Ready != u.Accepted && sum.Scenario != "abuse" || u.Failed != 0 {
			t.Errorf("%s: uploads accepted %d, ready %d, failed %d", sum.Scenario, u.Accepted, u.Ready, u.Failed)
		}
	}
	if l := sum.Likes; l != nil && (l.Lost != 0 || l.Duplicated != 0 || !l.Verified) {
		t.Errorf("%s: likes lost %d, duplicated %d, verified %v", sum.Scenario, l.Lost, l.Duplicated, l.Verified)
	}
}

// mustRunWithEnv runs a scenario that starts its own server, which inherits
// this process's environment.
func mustRunWithEnv(t *testing.T, cfg Config, env []string) Summary {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return mustRun(t, cfg)
}

// checkAbuseSmoke: both halves measured, and the server answered the
// attacker as designed: log-ins past the per-address allowance 429, the
// honest account's log-ins 200.
func checkAbuseSmoke(t *testing.T, sum Summary) {
	t.Helper()
	a := sum.Abuse
	if a == nil || a.Baseline.Requests == 0 || a.Attacked.Requests == 0 {
		t.Fatalf("abuse halves not measured: %+v", a)
	}
	ans := a.Attacker.Answers
	if ans["login"]["429"] == 0 || ans["honest_login"]["200"] == 0 || len(ans["honest_login"]) != 1 {
		t.Errorf("attacker answers: %v", ans)
	}
	if ans["slow_upload"]["408"]+ans["slow_upload"]["429"] == 0 {
		t.Errorf("slow uploads were neither cut nor refused: %v", ans["slow_upload"])
	}
}
