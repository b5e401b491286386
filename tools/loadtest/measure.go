package main

import (
	"context"
	"sync"
	"time"
)

// measure runs the load phase, then drains uploads and verifies likes.
func measure(ctx context.Context, cfg *Config, d *scenarioDef, base string, fx *fixture, hot []*hotGuide, setup SetupInfo) (Summary, error) {
	sum := Summary{Scenario: cfg.Scenario, Target: base, StartedAt: time.Now(), Command: cfg.CommandLine,
		Host: hostInfo(), Setup: setup, Notes: append([]string(nil), fx.notes...)}
	if cfg.Scenario == "steps" || cfg.Scenario == "coldstart" {
		sum.StepsOn = cfg.StepsOn
	}
	hc := newHTTPClient(cfg.Timeout, max(cfg.VUs, 256))
	defer hc.CloseIdleConnections()
	rec := newRecorder(time.Time{})
	rec.markBackground("media_poll", "like_readback")
	e := &env{cfg: cfg, c: &client{base: base, also: cfg.Also, hc: hc, rec: rec}, fx: fx, hot: hot,
		media: newMediaTracker(rec), up: newUploader()}
	eng := &engine{rec: rec}
	shape, steps := cfg.shape(rec, eng)
	smp := newSampler(hc, base, rec, eng)
	smp.start(ctx)
	sum.Worker = cfg.workerInfo(smp)
	apiPid, workerPid := cfg.procs.pids()
	cpu0 := markCPU(apiPid, workerPid)

	rec.t0 = cpu0.at // before any goroutine touches rec
	bg, stopBg := context.WithCancel(ctx)
	defer stopBg()
	stopSampling := smp.run(bg)
	defer stopSampling()
	stopPoll := e.startPolling(bg, d.photos)
	stopClimb := func() {}
	if steps != nil {
		stopClimb = steps.start(bg)
	}
	defer stopClimb()
	cfg.Log.Info("load started", "scenario", cfg.Scenario, "model", sum.loadModel(cfg), "duration", cfg.Duration)
	eng.run(ctx, shape, d.build(e))
	stopClimb() // the load is over: nothing left to climb
	cpu1 := markCPU(apiPid, workerPid)
	loadDur := cpu1.at.Sub(rec.t0)
	sum.Generator = generatorUse(cpu0.gen, cpu1.gen, loadDur)
	cpuLoad := smp.sampleOnce(ctx)
	stopPoll()
	cfg.Log.Info("load finished", "took", loadDur.Round(time.Millisecond), "requests", rec.foregroundCount())

	drained, drainDur := e.drainUploads(ctx, d.photos, smp.queueDepth)
	if len(hot) > 0 {
		sum.Likes = e.verifyLikes(ctx, hot, cfg.LikeSettle)
	}
	cpuTotal := smp.sampleOnce(ctx)
	// Every background goroutine has returned before the summary reads what
	// they wrote.
	stopSampling()
	stopBg()
	sum.FinishedAt = time.Now()
	sum.fillLoad(cfg, loadDur)
	rec.fill(&sum, loadDur)
	sum.fillServer(smp, cpuLoad, cpuTotal, loadDur)
	sum.CPU = cpuSplit(cpu0, cpu1, pick(sum.ServerCPU.Available, cpuLoad, -1), sum.Worker.State == "paused" || sum.Worker.State == "none")
	if d.photos {
		sum.Uploads = e.uploadSummary(&sum, loadDur, drained, drainDur)
		if cfg.Drain <= 0 && sum.Uploads.NotReady > 0 {
			sum.Notes = append(sum.Notes, "uploads were not drained (-drain 0): ready counts cover the load phase only")
		}
	}
	if sum.Likes != nil {
		sum.Likes.finish(&e.likeStats, loadDur)
	}
	if steps != nil {
		sum.Steps = steps.summary()
	}
	if cfg.Scenario == "coldstart" {
		sum.ColdStart = coldWindows(rec, loadDur)
	}
	return sum, ctx.Err()
}

// workerInfo is the worker's state as the load starts.
func (c *Config) workerInfo(smp *sampler) WorkerInfo {
	w := WorkerInfo{State: c.workerState, BacklogAtStart: -1}
	if w.State == "" {
		w.State = "unknown"
	}
	if d, ok := smp.queueDepth(); ok {
		w.BacklogAtStart = d
	}
	return w
}

// shape turns the config into the engine's load shape; for a stepped run
// steps is its climber, which plans the steps and ends the load.
func (c *Config) shape(rec *recorder, eng *engine) (s loadShape, steps *stepRun) {
	s = loadShape{duration: c.Duration, maxInflight: c.MaxInflight}
	switch {
	case c.Scenario == "steps":
		steps = newStepRun(c, rec, eng)
		s.pacer = steps.pacer
	case c.Rate > 0:
		s.pacer = constantPacer(c.Rate)
		if c.Scenario == "coldstart" {
			rec.addWindow("first minute", 0, time.Minute)
			rec.addWindow("after", time.Minute, 1<<62)
		}
	default:
		s.vus, s.ramp, s.think = c.VUs, c.Ramp, c.Think
	}
	return s, steps
}

// livePollLimit bounds status polls per interval during the load: apps do
// poll, but the tool must not turn into a polling benchmark.
const livePollLimit = 20

// startPolling polls pending uploads during the load (bounded per round);
// the returned func stops it and waits.
func (e *env) startPolling(ctx context.Context, on bool) func() {
	if !on {
		return func() {}
	}
	pctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { e.media.pollWhile(pctx, e.c, e.cfg.PollEvery, livePollLimit) })
	return func() { cancel(); wg.Wait() }
}

// drainUploads polls until every accepted photo is ready or failed, or the
// drain bound ends; it returns whether it drained and how long it took.
func (e *env) drainUploads(ctx context.Context, on bool, queueDepth func() (float64, bool)) (bool, time.Duration) {
	if !on || e.media.pendingCount() == 0 {
		return true, 0
	}
	if e.cfg.Drain <= 0 {
		return false, 0
	}
	start := time.Now()
	e.cfg.Log.Info("waiting for uploads to complete", "pending", e.media.pendingCount(), "bound", e.cfg.Drain)
	dctx, cancel := context.WithTimeout(ctx, e.cfg.Drain)
	defer cancel()
	ok := e.media.drain(dctx, e.c, e.cfg.PollEvery, queueDepth)
	took := time.Since(start)
	if ok {
		took = e.media.lastResolvedSince(start)
	}
	e.cfg.Log.Info("upload drain", "drained", ok, "took", took.Round(time.Millisecond), "pending", e.media.pendingCount())
	return ok, took
}
