package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// drill is one fault injected while the load runs.
type drill struct {
	name    string
	fault   func(ctx context.Context, f *fleet) error
	replica bool // runs on a fleet whose reads go to a PostgreSQL replica
}

// The failover drill comes last: it leaves the fleet without a replica.
var drills = []drill{
	{"api-kill", killAPI, false},
	{"worker-kill", killWorkerMidRender, false},
	{"redis-failover", failRedisPrimary, false},
	{"s3-outage", stopS3, false},
	{"postgres-restart", restartPostgres, false},
	{"api-rolling", rollAPIs, false},
	{"replica-kill", killReplica, true},
	{"replica-delay", delayReplica, true},
	{"postgres-failover", failPrimary, true},
}

func drillNamed(name string) (drill, bool) {
	for _, d := range drills {
		if d.name == name {
			return d, true
		}
	}
	return drill{}, false
}

// killAPI kills -9 the last API process and starts it again at once.
func killAPI(ctx context.Context, f *fleet) error {
	i := len(f.apis) - 1
	f.apis[i].stop(syscall.SIGKILL, 10*time.Second)
	return f.startAPI(ctx, i)
}

// killWorkerMidRender waits until a worker has a render child, kills the
// worker with -9 (the child dies with it) and starts a replacement. The
// task it held comes back when its lease lapses.
func killWorkerMidRender(ctx context.Context, f *fleet) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for i, w := range f.workers {
			if w.alive() && hasChild(w.pid()) {
				f.log.Info("killing worker mid-render", "worker", w.name, "pid", w.pid())
				w.stop(syscall.SIGKILL, 10*time.Second)
				return f.replaceWorker(i)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no worker was rendering within 30 s")
}

// hasChild reports whether pid has a child process (a render child). Each
// thread lists the children it started, and Go starts them from any thread.
func hasChild(pid int) bool {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) != "" {
			return true
		}
	}
	return false
}

// failRedisPrimary kills -9 the Redis primary, waits until every sentinel
// names the promoted replica, then brings the old primary back as its
// replica, so the next drill again has a primary and a replica.
func failRedisPrimary(ctx context.Context, f *fleet) error {
	old, err := f.redis.primary(ctx)
	if err != nil {
		return err
	}
	if err := f.redis.kill9(old); err != nil {
		return err
	}
	start := time.Now()
	var promoted int
	if err := waitFor(ctx, "promotion", 60*time.Second, func() error {
		p, err := f.redis.primary(ctx)
		if err == nil && p == old {
			err = fmt.Errorf("%d is still the primary", old)
		}
		promoted = p
		return err
	}); err != nil {
		return err
	}
	f.log.Info("replica promoted", "after", time.Since(start).Round(10*time.Millisecond))
	if err := f.redis.restart(ctx, old); err != nil {
		return err
	}
	return waitFor(ctx, "old primary rejoining as replica", 60*time.Second, func() error {
		if p, err := f.redis.primary(ctx); err != nil || p != promoted {
			return fmt.Errorf("primary %d (%v), want %d", p, err, promoted)
		}
		return replicaLinked(ctx, old, promoted)
	})
}

// stopS3 stops the S3 server for 10 s.
func stopS3(ctx context.Context, f *fleet) error {
	f.s3.stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
	}
	return f.s3.start(ctx)
}

// restartPostgres crashes the private cluster (immediate stop) and starts it.
func restartPostgres(ctx context.Context, f *fleet) error {
	if err := f.pg.stop(ctx); err != nil {
		return err
	}
	return f.pg.start(ctx)
}

// rollAPIs restarts the API processes one after the other with SIGTERM,
// each back on /readyz before the next stops.
func rollAPIs(ctx context.Context, f *fleet) error {
	for i := range f.apis {
		f.apis[i].stop(syscall.SIGTERM, 30*time.Second)
		if err := f.startAPI(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// result is one row of the drill table.
type result struct {
	Drill                      string
	Rate                       float64
	Requests, Errors5xx, NoAns int
	P50, P99                   float64
	RecoveredS                 float64 // -1: errors until the end of the load
	FaultS                     float64 // how long the fault action took
	Accepted, Ready, Failed    int
	NotReady                   int
	DrainS                     float64
	LikesAcked, LikesRecorded  int
	LikesUnknown               int
	LikesLost, LikesDup        int
	LikesVerified              bool
}

// nothingLost: every accepted photo ready, every acknowledged like recorded
// once (within the likes whose outcome the client could not know).
func (r result) nothingLost() bool {
	return r.Accepted == r.Ready && r.LikesVerified && r.LikesLost == 0 && r.LikesDup == 0
}

// runDrill runs the load, injects the fault faultAt into it, and reads the
// generator's summary once its drain is done.
func runDrill(ctx context.Context, f *fleet, d drill, lc loadConfig, faultAt time.Duration) (result, error) {
	r := result{Drill: d.name, Rate: lc.Rate, RecoveredS: 0}
	lr := f.startLoad(ctx, d.name, mixedArgs(lc)...)
	var t0 time.Time
	select {
	case t0 = <-lr.started:
	case <-lr.done:
		return r, fmt.Errorf("load ended before it started: %v", lr.err)
	}
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-time.After(faultAt):
	}
	faultSec := time.Since(t0).Seconds()
	f.log.Info("fault", "drill", d.name, "at_s", round1(faultSec))
	ferr := d.fault(ctx, f)
	r.FaultS = time.Since(t0).Seconds() - faultSec
	<-lr.done
	if ferr != nil {
		return r, fmt.Errorf("%s: %w", d.name, ferr)
	}
	if lr.err != nil {
		return r, lr.err
	}
	fill(&r, lr.sum, faultSec)
	return r, f.anyDied()
}

func fill(r *result, s summary, faultSec float64) {
	r.Requests = s.Totals.Requests
	for code, n := range s.Totals.StatusCodes {
		if c, _ := strconv.Atoi(code); c >= 500 {
			r.Errors5xx += n
		} else if c == 0 {
			r.NoAns += n
		}
	}
	r.P50, r.P99 = s.Totals.Latency.P50, s.Totals.Latency.P99
	r.RecoveredS = recovery(s, faultSec)
	if u := s.Uploads; u != nil {
		r.Accepted, r.Ready, r.Failed, r.NotReady, r.DrainS = u.Accepted, u.Ready, u.Failed, u.NotReady, u.DrainS
	}
	if l := s.Likes; l != nil {
		r.LikesAcked, r.LikesRecorded, r.LikesUnknown = l.Expected, l.Recorded, l.Unknown
		r.LikesLost, r.LikesDup, r.LikesVerified = l.Lost, l.Duplicated, l.Verified
	}
}

// recovery is the seconds from the fault to the end of the last second of
// the load that saw an error: 0 when nothing failed after the fault, -1
// when the last second of the load still failed.
func recovery(s summary, faultSec float64) float64 {
	last := -1
	for i, b := range s.Timeline {
		if b.Errors > 0 && float64(i+1) > faultSec {
			last = i
		}
	}
	switch {
	case last < 0:
		return 0
	case last == len(s.Timeline)-1:
		return -1
	}
	return round1(float64(last+1) - faultSec)
}

func round1(x float64) float64 { return float64(int(x*10+0.5)) / 10 }
