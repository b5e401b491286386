package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// action is one iteration of a scenario. slot picks the acting user: the VU
// index in a closed loop, the arrival number in an open loop.
type action func(ctx context.Context, slot int)

// engine drives actions open-loop (arrivals paced by a vegeta.Pacer, the
// server's slowness does not slow them) or closed-loop (vus users, each
// waiting for its answer, thinking, then acting again).
//
// It does not use vegeta.Attacker: an Attacker sends vegeta Targets whose
// bodies are whole []byte (a fresh 4 MB copy per distinct upload), cannot
// tell which virtual user a result belongs to (likes need that), and has no
// closed-loop ramp. The Pacer interface and Metrics are reused as they are.
type engine struct {
	rec      *recorder
	active   atomic.Int64 // VUs running (closed loop)
	inflight atomic.Int64 // iterations in progress (both)
}

type loadShape struct {
	pacer       vegeta.Pacer // non-nil: open loop
	duration    time.Duration
	vus         int
	ramp        time.Duration // closed loop: VU i starts at i·ramp/vus
	think       time.Duration // closed loop: mean pause between iterations (±50 %)
	maxInflight int           // open loop: arrivals beyond this are dropped and counted
}

// run blocks until no new iteration may start (duration over, pacer done or
// ctx ended) and every started iteration returned. Iterations get ctx, not
// a duration-bounded context: the last ones finish (bounded by the request
// timeout) instead of being cut and counted as failures.
func (e *engine) run(ctx context.Context, s loadShape, act action) {
	if s.pacer != nil {
		e.open(ctx, s, act)
		return
	}
	e.closed(ctx, s, act)
}

func (e *engine) open(ctx context.Context, s loadShape, act action) {
	began := e.rec.t0
	sem := make(chan struct{}, max(s.maxInflight, 1))
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for hits := uint64(0); ; {
		if ctx.Err() != nil {
			return
		}
		elapsed := time.Since(began)
		// A generator that fell behind (a busy machine) still sends every
		// hit due before the end: the arrivals of an open loop are the
		// pacer's, not a function of how fast this loop ran.
		wait, stop := s.pacer.Pace(min(elapsed, s.duration-1), hits)
		if stop {
			return
		}
		if wait > 0 && elapsed >= s.duration {
			return // the next hit falls after the end
		}
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			continue // re-ask the pacer: the duration may have ended meanwhile
		}
		// A late hit counts at the time it was due, so each step or window
		// gets the arrivals the pacer gave it.
		due := elapsed
		if at, _ := s.pacer.Pace(0, hits); at < elapsed {
			due = at
		}
		slot := int(hits)
		hits++
		select {
		case sem <- struct{}{}:
			e.rec.arrival(due, false)
			e.inflight.Add(1)
			wg.Go(func() {
				defer func() { e.inflight.Add(-1); <-sem }()
				act(ctx, slot)
			})
		default:
			e.rec.arrival(due, true)
		}
	}
}

func (e *engine) closed(ctx context.Context, s loadShape, act action) {
	began := e.rec.t0
	var wg sync.WaitGroup
	for i := range s.vus {
		delay := time.Duration(int64(s.ramp) * int64(i) / int64(s.vus))
		wg.Go(func() {
			if !sleepCtx(ctx, delay) {
				return
			}
			e.active.Add(1)
			defer e.active.Add(-1)
			for ctx.Err() == nil && time.Since(began) < s.duration {
				e.rec.arrival(time.Since(began), false)
				e.inflight.Add(1)
				act(ctx, i)
				e.inflight.Add(-1)
				left := s.duration - time.Since(began)
				if s.think > 0 && (left <= 0 || !sleepCtx(ctx, min(jitter(s.think), left))) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// jitter spreads think times ±50 % so VUs do not march in lockstep.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}
