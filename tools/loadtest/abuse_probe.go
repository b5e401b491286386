package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// probeAddr is the well-behaved client's own address: Linux routes all of
// 127/8 to lo, so dialling from it puts the probe apart from the attacker
// (127.0.0.1, or the address it forwards) in every per-address limit,
// without X-Forwarded-For.
var probeAddr = net.ParseIP("127.0.0.2")

// probeCycle is the probe's traffic, arrival by arrival: of every 20, 7
// nearby, 5 viewport and 7 tile requests and one log-in, as a signed-in
// app does at a steady modest rate.
const probeCycle = 20

// probe is the well-behaved client of the side doors. Each half replays
// the same seeded trace (arrival n sends the same request), so the two
// halves of a door compare query for query.
type probe struct {
	cfg      *Config
	base     string
	hc       *http.Client
	metrics  *http.Client // /metrics scrapes between doors
	tiles    *tileTrace
	n        int // arrivals per half
	email    string
	password string
	token    atomic.Pointer[string] // "Bearer …", the latest log-in's
}

// newProbe signs the probe's account up from its own address and warms
// the trace once (every map request of it, no log-ins), so that neither
// half of the first door pays for a cold cache.
func newProbe(ctx context.Context, cfg *Config, base string, fx *fixture) (*probe, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("abuse: side doors attack loopback targets only, not %s", u.Hostname())
	}
	n := max(int(cfg.Attack.ProbeRate*cfg.Attack.DoorTime.Seconds()), probeCycle)
	p := &probe{cfg: cfg, base: base, n: n, tiles: newTileTrace(cfg.Seed, 20, n),
		hc: probeHTTPClient(cfg.Timeout), metrics: newHTTPClient(cfg.Timeout, 2),
		email: probeEmail, password: "probe steady pace"}
	if err := p.signup(ctx); err != nil {
		p.close()
		return nil, err
	}
	p.warm(ctx)
	return p, nil
}

// probeHTTPClient dials from probeAddr when the target is IPv4 (a target
// such as [::1] has no second address to dial from: it is dialled as is).
func probeHTTPClient(timeout time.Duration) *http.Client {
	hc := newHTTPClient(timeout, 64)
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, LocalAddr: &net.TCPAddr{IP: probeAddr}}
	plain := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	hc.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
			return plain.DialContext(ctx, network, addr)
		}
		return d.DialContext(ctx, "tcp4", addr)
	}
	return hc
}

func (p *probe) close() {
	p.hc.CloseIdleConnections()
	p.metrics.CloseIdleConnections()
}

// probeEmail is one account for every run: a server that already has it
// (an earlier run) logs it in, so runs do not spend the probe address's
// sign-ups.
const probeEmail = "guidepost-load-probe@example.com"

// signup signs the probe up, or logs it in when its account exists (409)
// or its address may sign up no more (429).
func (p *probe) signup(ctx context.Context) error {
	body, _ := json.Marshal(map[string]string{"email": p.email, "password": p.password, "display_name": "Probe"})
	var s struct {
		AccessToken string `json:"access_token"`
	}
	c := &client{base: p.base, hc: p.hc, rec: newRecorder(time.Now())}
	o := c.retrying(ctx, request{kind: "probe_signup", method: http.MethodPost, path: "/v1/auth/signup",
		ctype: "application/json", out: &s}, 4, jsonBody(body))
	if o.code == http.StatusConflict || o.code == http.StatusTooManyRequests {
		login, _ := json.Marshal(map[string]string{"email": p.email, "password": p.password})
		o = c.retrying(ctx, request{kind: "probe_login", method: http.MethodPost, path: "/v1/auth/login",
			ctype: "application/json", out: &s}, 4, jsonBody(login))
	}
	if !o.ok() || s.AccessToken == "" {
		return fmt.Errorf("abuse: the probe's sign-up or log-in from %s: HTTP %d (%s)", probeAddr, o.code, o.fail)
	}
	tok := "Bearer " + s.AccessToken
	p.token.Store(&tok)
	return nil
}

// warm sends every distinct map request of the trace once, 8 at a time.
func (p *probe) warm(ctx context.Context) {
	c := &client{base: p.base, hc: p.hc, rec: newRecorder(time.Now())}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	seen := map[string]bool{}
	for slot := range p.n {
		r, ok := p.request(slot)
		if !ok || seen[r.path] {
			continue
		}
		seen[r.path] = true
		g.Go(func() error { c.do(gctx, r); return nil })
	}
	g.Wait()
}

// request is arrival slot's map request; false for a log-in.
func (p *probe) request(slot int) (request, bool) {
	r := traceRand(p.cfg.Seed, slot)
	switch k := slot % probeCycle; {
	case k < 7:
		lat, lng := randomPoint(r)
		return request{kind: "nearby", method: http.MethodGet, path: "/v1/guides/nearby?lat=" + fmtCoord(lat) +
			"&lng=" + fmtCoord(lng) + "&radius_m=" + strconv.FormatFloat(randomRadius(r), 'f', 0, 64) + "&limit=20"}, true
	case k < 12:
		return request{kind: "bbox", method: http.MethodGet, path: "/v1/guides?bbox=" + randomViewport(r).param() + "&limit=100"}, true
	case k < 19:
		return request{kind: "tile", method: http.MethodGet, path: p.tiles.paths[slot%len(p.tiles.paths)]}, true
	}
	return request{}, false
}

// phase runs one half: the trace, open loop at the probe's rate, for the
// door's time. tee, when not nil, records every request too.
func (p *probe) phase(ctx context.Context, tee *recorder) ProbePhase {
	rec := newRecorder(time.Now())
	c := &client{base: p.base, hc: p.hc, rec: rec, tee: tee}
	eng := &engine{rec: rec}
	shape := loadShape{pacer: constantPacer(p.cfg.Attack.ProbeRate), duration: p.cfg.Attack.DoorTime, maxInflight: 1000}
	eng.run(ctx, shape, func(ctx context.Context, slot int) { p.act(ctx, c, slot%p.n) })
	return probePhase(rec)
}

func (p *probe) act(ctx context.Context, c *client, slot int) {
	tok := *p.token.Load()
	if r, ok := p.request(slot); ok {
		r.user = &user{auth: tok}
		c.do(ctx, r)
		return
	}
	body, _ := json.Marshal(map[string]string{"email": p.email, "password": p.password})
	var s struct {
		AccessToken string `json:"access_token"`
	}
	o := c.do(ctx, request{kind: "login", method: http.MethodPost, path: "/v1/auth/login",
		body: bytes.NewReader(body), size: int64(len(body)), ctype: "application/json", out: &s})
	if o.ok() && s.AccessToken != "" {
		tok := "Bearer " + s.AccessToken
		p.token.Store(&tok)
	}
}

// probePhase reads a half's recorder.
func probePhase(rec *recorder) ProbePhase {
	var s Summary
	rec.fill(&s, time.Since(rec.t0))
	ph := ProbePhase{Requests: s.Totals.Requests, Latency: s.Totals.Latency, StatusCodes: s.Totals.StatusCodes,
		KindsP95: map[string]float64{}, Dropped: s.Failures.Dropped}
	for k, ks := range s.Kinds {
		ph.KindsP95[k] = ks.Latency.P95
	}
	for code, n := range s.Totals.StatusCodes {
		switch {
		case code == "0":
			ph.NoAnswer += n
		case strings.HasPrefix(code, "5"):
			ph.FiveXX += n
		}
	}
	return ph
}
