package main

import (
	"log/slog"
	"slices"
	"testing"
	"time"
)

// testConfig is a short, quiet run against base that writes nothing.
func testConfig(t *testing.T, scenario, base string) Config {
	cfg := defaultConfig()
	cfg.Scenario, cfg.Target, cfg.NoWrite = scenario, base, true
	cfg.Duration = 1500 * time.Millisecond
	cfg.PhotoSizes = []int{20_000, 40_000}
	cfg.PollEvery = 50 * time.Millisecond
	cfg.Drain = 2 * time.Second
	cfg.LikeSettle = 300 * time.Millisecond
	cfg.Timeout = 5 * time.Second
	cfg.SetupTimeout = 30 * time.Second
	cfg.ReadyTimeout = 5 * time.Second
	cfg.Log = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	return cfg
}

// The upload scenario must report exactly the fake's rejections, the
// photos that never became ready and those that failed.
func TestUploadAcceptedVersusCompleted(t *testing.T) {
	f := newFakeAPI()
	f.rejectEvery, f.neverEvery, f.failEvery = 7, 5, 11
	srv := f.start(t)
	cfg := testConfig(t, "upload", srv.URL)
	cfg.VUs = 4
	// Every upload must be resolved within the drain bound, twenty polls a
	// round while the queue is busy: on a busy machine the load still makes
	// hundreds, and 2 s did not always suffice.
	cfg.Drain = 8 * time.Second
	sum, err := run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	u := sum.Uploads
	if u == nil {
		t.Fatal("no upload summary")
	}
	f.mu.Lock()
	accepted, rejected, never, failed, signups := f.accepted, f.rejected, f.never, f.failed, f.signups
	uploaders := len(f.uploaders)
	f.mu.Unlock()
	t.Logf("fake: accepted %d rejected %d never %d failed %d; tool: %+v", accepted, rejected, never, failed, *u)
	if accepted < 20 || never == 0 || failed == 0 || rejected == 0 {
		t.Fatalf("too little traffic to test: accepted %d never %d failed %d rejected %d", accepted, never, failed, rejected)
	}
	if u.Accepted != accepted || u.Attempted != accepted+rejected {
		t.Errorf("accepted %d of %d attempted, want %d of %d", u.Accepted, u.Attempted, accepted, accepted+rejected)
	}
	if u.NotReady != never || u.Failed != failed || u.Ready != accepted-never-failed {
		t.Errorf("ready %d failed %d not ready %d, want %d %d %d", u.Ready, u.Failed, u.NotReady, accepted-never-failed, failed, never)
	}
	if u.Drained || u.Deduplicated != 0 {
		t.Errorf("drained %v dedup %d: want false, 0 (some never become ready; every upload is distinct)", u.Drained, u.Deduplicated)
	}
	if got := sum.Failures.ByStatus["503"]; got != rejected || sum.Failures.Rejected != rejected {
		t.Errorf("503s reported %d (rejected %d), want %d", got, sum.Failures.Rejected, rejected)
	}
	if sum.Failures.ByKind["5xx"] != rejected {
		t.Errorf("5xx by kind = %d, want %d", sum.Failures.ByKind["5xx"], rejected)
	}
	if u.MaxQueueDepth < 1 || !sum.Queue.Available || !sum.ServerCPU.Available || sum.ServerCPU.LoadSeconds <= 0 {
		t.Errorf("queue/cpu from /metrics missing: queue %+v cpu %+v", sum.Queue, sum.ServerCPU)
	}
	if u.AcceptedPerS <= 0 || u.ReadyPerS <= 0 {
		t.Errorf("rates: accepted/s %v ready/s %v", u.AcceptedPerS, u.ReadyPerS)
	}
	if signups < minUsers || uploaders != cfg.VUs {
		t.Errorf("signups %d (want ≥ %d), distinct uploaders %d (want %d: one user per VU)", signups, minUsers, uploaders, cfg.VUs)
	}
}

// The likes scenario must report exactly the likes the fake's counter lost
// on one guide and the double taps it counted twice on another.
func TestLikesLostAndDuplicated(t *testing.T) {
	f := newFakeAPI()
	f.loseEvery["g1"], f.dupEvery["g2"] = 3, 4
	srv := f.start(t)
	cfg := testConfig(t, "likes", srv.URL)
	cfg.VUs, cfg.Think, cfg.Ramp = 40, 20*time.Millisecond, 0
	sum, err := run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := sum.Likes
	if l == nil {
		t.Fatal("no likes summary")
	}
	truth, lost, dup := f.likeTruth()
	t.Logf("fake: lost %d dup %d truth %v; tool: taps %d accepted %d lost %d dup %d", lost, dup, truth, l.Taps, l.Accepted, l.Lost, l.Duplicated)
	if lost == 0 || dup == 0 {
		t.Fatalf("the fake dropped nothing (lost %d, dup %d): test is void", lost, dup)
	}
	if l.Lost != lost || l.Duplicated != dup {
		t.Errorf("tool reports lost %d duplicated %d, fake did %d and %d", l.Lost, l.Duplicated, lost, dup)
	}
	if !l.Verified || l.Unknown != 0 || l.Rejected != 0 || l.Mismatched != 0 {
		t.Errorf("verified %v unknown %d rejected %d mismatched %d", l.Verified, l.Unknown, l.Rejected, l.Mismatched)
	}
	for _, g := range l.Guides {
		if g.ExpectedMin != truth[g.ID] || g.ExpectedMax != truth[g.ID] {
			t.Errorf("guide %s: expected %d..%d, truth %d", g.ID, g.ExpectedMin, g.ExpectedMax, truth[g.ID])
		}
	}
	if l.Taps != l.Accepted || l.Taps%2 != 0 || l.AcceptedPerS <= 0 {
		t.Errorf("taps %d accepted %d (double taps: even, all accepted), %v/s", l.Taps, l.Accepted, l.AcceptedPerS)
	}
	f.mu.Lock()
	likers := len(f.likers)
	f.mu.Unlock()
	if likers != cfg.VUs {
		t.Errorf("%d distinct users liked, want %d (one per VU)", likers, cfg.VUs)
	}
}

// Open loop at a fixed rate: the pacer's count, all served.
func TestNearbyOpenLoop(t *testing.T) {
	f := newFakeAPI()
	srv := f.start(t)
	cfg := testConfig(t, "nearby", srv.URL)
	cfg.Rate, cfg.Duration = 100, time.Second
	sum, err := run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := sum.Totals.Requests; n < 98 || n > 100 {
		t.Errorf("%d requests at 100/s for 1 s", n)
	}
	if sum.Totals.SuccessRate != 1 || sum.Kinds["nearby"].Requests == 0 || sum.Kinds["bbox"].Requests == 0 {
		t.Errorf("success %v kinds %v", sum.Totals.SuccessRate, sum.Kinds)
	}
	if sum.Load.Model != "open" || sum.Host.NumCPU < 1 || sum.Host.GOMAXPROCS < 1 {
		t.Errorf("load %+v host %+v", sum.Load, sum.Host)
	}
}

// Steps: the fake turns slow (1.1 s) once the first two steps are served,
// so the held step is the second.
func TestStepsHeldStepAgainstFake(t *testing.T) {
	// -step-continue: a machine that stalls the generator for a second
	// would have the watcher halt in the second step.
	st, _ := stepsAgainstFake(t, 40, true, 0)
	if st == nil || len(st.Steps) != 3 {
		t.Fatalf("steps: %+v", st)
	}
	for i, s := range st.Steps {
		t.Logf("step %d: %+v", i, s)
	}
	if st.HeldRate != 20 || st.FirstFailedRate != 40 || st.HeldIndex != 1 {
		t.Errorf("held %v (index %d), first failed %v; want 20, 1, 40", st.HeldRate, st.HeldIndex, st.FirstFailedRate)
	}
	if st.Steps[0].Arrivals != 10 || st.Steps[1].Arrivals != 20 || st.Steps[2].Arrivals != 40 {
		t.Errorf("arrivals per step: %d %d %d, want 10 20 40", st.Steps[0].Arrivals, st.Steps[1].Arrivals, st.Steps[2].Arrivals)
	}
}

// The climb stops doubling at the first failing step: the fake turns slow
// in the third step (40/s), which is judged one second after it ends, so
// the fifth step (160/s) never starts. Run to the end, the load would send
// 310 requests. (A machine that stalls the generator can fail an earlier
// step; the load must then stop earlier still.)
func TestStepsWatcherHaltsTheLoad(t *testing.T) {
	st, f := stepsAgainstFake(t, 160, false, 0)
	if st == nil || !st.StoppedEarly || st.FirstFailedRate == 0 || st.Steps[len(st.Steps)-1].TargetRate != st.FirstFailedRate {
		t.Fatalf("steps: %+v", st)
	}
	f.mu.Lock()
	sent := f.nearbySeen
	f.mu.Unlock()
	t.Logf("%d nearby requests, first failed step %v/s", sent, st.FirstFailedRate)
	// Halted, the load ends with the step after the failing one (the
	// watcher's grace second): 10+20+40+80 requests when the third fails.
	halted := 0
	for r := 10.0; r <= 2*st.FirstFailedRate; r *= 2 {
		halted += int(r)
	}
	if sent > halted+40 {
		t.Errorf("%d requests, want at most about %d: the load went on after the failing step", sent, halted)
	}
}

// The climb finds a ceiling between two doubling steps: the fake answers
// the nearby requests past 52 in any second slowly, so 40/s holds, 80/s
// fails, then 57/s (between them) fails and 48/s holds.
func TestStepsClimbRefinesTheCeiling(t *testing.T) {
	f := newFakeAPI()
	f.nearbyCap = 52
	srv := f.start(t)
	cfg := testConfig(t, "steps", srv.URL)
	cfg.Duration = 0
	cfg.StepLen, cfg.StepStart, cfg.StepMax, cfg.StepRefine = time.Second, 10, 1280, 2
	sum, err := run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := sum.Steps
	var rates []float64
	for _, s := range st.Steps {
		rates = append(rates, s.TargetRate)
		t.Logf("step %+v", s)
	}
	if !slices.Equal(rates, []float64{10, 20, 40, 80, 57, 48}) || !st.Steps[4].Refine || st.Steps[3].Refine {
		t.Fatalf("rates %v, want 10 20 40 80 then 57 48 refining", rates)
	}
	if st.HeldRate != 48 || st.FirstFailedRate != 57 || !st.StoppedEarly || st.Capped || st.Rates() != "10✓ 20✓ 40✓ 80✗ 57✗ 48✓" {
		t.Errorf("ceiling %v first failed %v stopped %v capped %v steps %s", st.HeldRate, st.FirstFailedRate, st.StoppedEarly, st.Capped, st.Rates())
	}
}

// stepsAgainstFake runs 1 s steps from 10/s up to maxRate against a fake
// whose nearby answers turn slow (1.1 s) once the first two steps are served.
func stepsAgainstFake(t *testing.T, maxRate float64, continueOnFailure bool, refine int) (*StepsSummary, *fakeAPI) {
	t.Helper()
	f := newFakeAPI()
	f.slowNearbyAfter = 10 + 20
	srv := f.start(t)
	cfg := testConfig(t, "steps", srv.URL)
	cfg.Duration = 0
	cfg.StepLen, cfg.StepStart, cfg.StepMax, cfg.StepRefine = time.Second, 10, maxRate, refine
	cfg.StepContinue = continueOnFailure
	sum, err := run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sum.Steps, f
}

// Mixed drives every request kind and both trackers.
func TestMixedSmokeAgainstFake(t *testing.T) {
	f := newFakeAPI()
	srv := f.start(t)
	cfg := testConfig(t, "mixed", srv.URL)
	cfg.VUs, cfg.Think, cfg.Ramp, cfg.HotGuides, cfg.SeedGuides = 30, 10*time.Millisecond, 300*time.Millisecond, 4, 20
	sum, err := run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"guide_read", "nearby", "bbox", "like"} {
		if sum.Kinds[k].Requests == 0 {
			t.Errorf("no %s requests: %v", k, sortedKinds(sum.Kinds))
		}
	}
	if sum.Uploads == nil || sum.Likes == nil || sum.Likes.Lost != 0 || sum.Likes.Duplicated != 0 {
		t.Errorf("uploads %+v likes %+v", sum.Uploads, sum.Likes)
	}
	if sum.Setup.GuidesSeeded != 20 || sum.Setup.GuidePool < 20 || sum.Totals.SuccessRate != 1 {
		t.Errorf("setup %+v success %v", sum.Setup, sum.Totals.SuccessRate)
	}
}

func TestResolveRejectsBothModels(t *testing.T) {
	cfg := defaultConfig()
	cfg.Scenario, cfg.Rate, cfg.VUs = "read", 10, 10
	if err := cfg.resolve(); err == nil {
		t.Fatal("-rate and -vus together accepted")
	}
	cfg = defaultConfig()
	cfg.Scenario = "nope"
	if err := cfg.resolve(); err == nil {
		t.Fatal("unknown scenario accepted")
	}
	cfg = defaultConfig()
	cfg.Scenario, cfg.VUs = "likes", 1000
	if err := cfg.resolve(); err != nil || cfg.Users != 1000 || cfg.HotGuides != 5 {
		t.Fatalf("likes: users %d hot %d err %v", cfg.Users, cfg.HotGuides, err)
	}
}
