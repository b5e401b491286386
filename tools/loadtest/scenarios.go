package main

import (
	"context"
	"math/rand/v2"
	"time"
)

// scenarioDef is a named load: its defaults and its action.
type scenarioDef struct {
	name      string
	rate      float64 // default open-loop rate (0: closed loop by default)
	vus       int     // default closed-loop VUs
	duration  time.Duration
	rampShare float64 // default ramp, as a share of the duration
	think     time.Duration
	drain     time.Duration // default bound on waiting for uploads to be ready
	hot       int           // fresh guides whose likes are verified (0: no likes)
	guides    bool          // reads need a pool of guide ids
	photos    bool          // uploads need generated photos
	build     func(e *env) action
}

var loadScenarios = map[string]*scenarioDef{
	"upload": {name: "upload", vus: 20, duration: 30 * time.Second, drain: 2 * time.Minute, photos: true,
		build: func(e *env) action {
			return func(ctx context.Context, slot int) {
				e.upload(ctx, e.user(slot), e.fx.photos[rand.IntN(len(e.fx.photos))])
			}
		}},
	// upload-direct is upload the direct way: POST /v1/uploads, PUT the
	// parts to S3, POST complete.
	"upload-direct": {name: "upload-direct", vus: 20, duration: 30 * time.Second, drain: 2 * time.Minute, photos: true,
		build: func(e *env) action {
			return func(ctx context.Context, slot int) {
				e.uploadDirect(ctx, e.user(slot), e.fx.photos[rand.IntN(len(e.fx.photos))])
			}
		}},
	"read": {name: "read", rate: 200, duration: 30 * time.Second, guides: true,
		build: func(e *env) action {
			return func(ctx context.Context, slot int) { e.readGuide(ctx, e.user(slot)) }
		}},
	"nearby": {name: "nearby", rate: 200, duration: 30 * time.Second,
		build: func(e *env) action {
			return func(ctx context.Context, slot int) {
				r := traceRand(e.cfg.Seed, slot)
				if r.Float64() < 0.75 {
					e.nearby(ctx, e.user(slot), r)
				} else {
					e.viewport(ctx, e.user(slot), r)
				}
			}
		}},
	"mixed": {name: "mixed", vus: 300, duration: time.Minute, rampShare: 0.5, think: time.Second,
		drain: 2 * time.Minute, hot: 20, guides: true, photos: true, build: mixedAction},
	// abuse runs the mixed load twice, the second time beside an attacker
	// (see runAbuse); duration is each half's.
	"abuse": {name: "abuse", vus: 200, duration: 30 * time.Second, rampShare: 0.2, think: time.Second,
		drain: 30 * time.Second, hot: 20, guides: true, photos: true, build: mixedAction},
	// tiles replays map sessions (see tiles.go); runTiles gives it its
	// action once the trace is drawn.
	"tiles": {name: "tiles", rate: 500, duration: 30 * time.Second,
		build: func(*env) action { panic("tiles: runTiles sets the action") }},
	"likes": {name: "likes", vus: 1000, duration: 30 * time.Second, rampShare: 0.1, think: time.Second,
		hot: 5, build: func(e *env) action {
			return func(ctx context.Context, slot int) { e.likeTap(ctx, e.user(slot), 2, 0.35) }
		}},
}

// mixedAction is the app's traffic: 70 % reads (guide 30, nearby 25,
// viewport 15), 20 % likes and unlikes (a fifth of them double taps), 10 %
// photo uploads.
func mixedAction(e *env) action {
	return func(ctx context.Context, slot int) {
		u := e.user(slot)
		switch r := rand.Float64(); {
		case r < 0.30:
			e.readGuide(ctx, u)
		case r < 0.55:
			e.nearby(ctx, u, anyRand)
		case r < 0.70:
			e.viewport(ctx, u, anyRand)
		case r < 0.90:
			taps := 1
			if rand.Float64() < 0.2 {
				taps = 2
			}
			e.likeTap(ctx, u, taps, 0.8)
		default:
			e.upload(ctx, u, e.randomPhoto())
		}
	}
}
