package main

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// env is what actions need: the recorded client, the fixture and the
// trackers of accepted versus completed work.
type env struct {
	cfg       *Config
	c         *client
	fx        *fixture
	hot       []*hotGuide
	media     *mediaTracker
	up        *uploader
	seq       atomic.Uint64
	likeStats likeStats
}

// user maps a slot to an account: VU i is always user i (closed loop), and
// arrivals cycle through all users (open loop).
func (e *env) user(slot int) *user { return e.fx.users[slot%len(e.fx.users)] }

func (e *env) readGuide(ctx context.Context, u *user) {
	id := e.fx.pool[e.fx.zipf.sample()]
	e.c.do(ctx, request{kind: "guide_read", method: http.MethodGet, path: "/v1/guides/" + id, user: u})
}

func (e *env) nearby(ctx context.Context, u *user, r *rand.Rand) {
	lat, lng := randomPoint(r)
	path := "/v1/guides/nearby?lat=" + fmtCoord(lat) + "&lng=" + fmtCoord(lng) +
		"&radius_m=" + strconv.FormatFloat(randomRadius(r), 'f', 0, 64) + "&limit=20"
	e.c.do(ctx, request{kind: "nearby", method: http.MethodGet, path: path, user: u})
}

func (e *env) viewport(ctx context.Context, u *user, r *rand.Rand) {
	path := "/v1/guides?bbox=" + randomViewport(r).param() + "&limit=100"
	e.c.do(ctx, request{kind: "bbox", method: http.MethodGet, path: path, user: u})
}

// upload sends one distinct photo and hands an accepted one to the tracker.
func (e *env) upload(ctx context.Context, u *user, p *photo) {
	body, size := e.up.body(p, e.seq.Add(1))
	var a mediaAnswer
	o := e.c.do(ctx, request{kind: "upload:" + p.label, method: http.MethodPost, path: "/v1/media",
		user: u, body: body, size: size, ctype: e.up.ctype, out: &a})
	if o.ok() {
		e.media.accept(a, o.code, u, time.Now())
	}
}

// randomPhoto favours small photos (weights 1, 1/2, 1/3 … by size order):
// most phone uploads are resized, some are full-size originals.
func (e *env) randomPhoto() *photo {
	ps := e.fx.photos
	var total float64
	for i := range ps {
		total += 1 / float64(i+1)
	}
	u := rand.Float64() * total
	for i, p := range ps {
		if u -= 1 / float64(i+1); u < 0 {
			return p
		}
	}
	return ps[len(ps)-1]
}

// likeTap picks a hot guide and likes it, or unlikes it with probability
// unlikeShare when the user's like is known to exist.
func (e *env) likeTap(ctx context.Context, u *user, taps int, unlikeShare float64) {
	g := e.hot[rand.IntN(len(e.hot))].id
	e.tap(ctx, u, g, taps, func(liked bool) bool { return !liked || rand.Float64() >= unlikeShare })
}
