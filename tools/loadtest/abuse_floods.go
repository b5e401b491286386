package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// refusedPause is how long a flood's loop waits after a refusal before it
// tries again. A real attacker need not, but here its CPU is the server's
// host's: a loop spinning on instant 429s would measure the generator.
const refusedPause = 50 * time.Millisecond

// idleRedial is the pause before an idle connection that ended is opened
// again: its strength is the connections it holds, and 300 connections
// redialling at once after a fast refusal would only measure the
// generator's CPU.
const idleRedial = 250 * time.Millisecond

// idleBodies holds IdleConns connections, each sending the headers of a
// JSON request that announce 99 bytes, one byte of body, then nothing:
// half on POST /v1/auth/login (public), half on PATCH /v1/me (signed in).
// Whenever the server answers or closes one, it is opened again (after
// idleRedial); those
// still waiting when the attack stops are counted "held".
func (d *doorAttack) idleBodies(ctx context.Context) {
	u, _ := url.Parse(d.a.base)
	var wg sync.WaitGroup
	for i := range d.cfg.IdleConns {
		activity, path, token := "idle_login", "/v1/auth/login", ""
		if i%2 == 1 {
			activity, path, token = "idle_me", "/v1/me", d.a.guestToken(i)
		}
		method := map[bool]string{true: "POST", false: "PATCH"}[token == ""]
		wg.Go(func() {
			for ctx.Err() == nil && d.spend() {
				code := idleBody(ctx, u.Host, method, path, token)
				if ctx.Err() != nil {
					d.tally.addKey(activity, "held")
					return
				}
				d.tally.add(activity, code)
				sleepCtx(ctx, idleRedial)
			}
		})
	}
	wg.Wait()
}

// idleBody sends one idle body on a fresh connection and returns the
// server's status, or 0 when it closed the connection without one.
func idleBody(ctx context.Context, host, method, path, token string) int {
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", host)
	if err != nil {
		return 0
	}
	defer context.AfterFunc(ctx, func() { conn.Close() })()
	defer conn.Close()
	head := method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Content-Length: 99\r\nX-Forwarded-For: " + attackerAddr + "\r\n"
	if token != "" {
		head += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n{"); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// uploadFlood is one guest creating direct uploads as fast as it can,
// UploadFloods loops at once: declare (POST /v1/uploads), PUT the parts to
// their presigned URLs, complete; refusals (open uploads, daily bytes,
// rates) do not stop it.
func (d *doorAttack) uploadFlood(ctx context.Context) {
	token := d.a.guestToken(0)
	img := &photo{jpeg: noisyJPEG(100_000), label: "flood"}
	up := newUploader()
	var seq atomic.Uint64
	var wg sync.WaitGroup
	for range d.cfg.UploadFloods {
		wg.Go(func() {
			for ctx.Err() == nil && d.spend() {
				if !d.directUpload(ctx, attackerAddr, token, up.raw(img, seq.Add(1))) {
					sleepCtx(ctx, refusedPause)
				}
			}
		})
	}
	wg.Wait()
}

// directUpload runs one upload from address from; false when a step was
// refused.
func (d *doorAttack) directUpload(ctx context.Context, from, token string, data []byte) bool {
	sum := sha256.Sum256(data)
	decl, _ := json.Marshal(map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(sum[:]), "content_type": "image/jpeg"})
	var t directTicket
	code, _ := d.a.post(ctx, "/v1/uploads", from, token, decl, &t)
	if ctx.Err() != nil {
		return true
	}
	d.tally.add("start", code)
	if code != http.StatusCreated {
		return false
	}
	for _, part := range t.Parts {
		// The part URLs are the server's; they too must be loopback.
		if _, err := checkTarget(part.URL, false); err != nil {
			d.tally.add("part_not_loopback", 0)
			return false
		}
		off := int64(part.Number-1) * t.PartSize
		code := d.a.put(ctx, part.URL, data[off:off+part.Bytes])
		if ctx.Err() != nil {
			return true
		}
		d.tally.add("s3_part", code)
		if code != http.StatusOK {
			return false
		}
	}
	code, _ = d.a.post(ctx, "/v1/uploads/"+t.ID+"/complete", from, token, nil, nil)
	if ctx.Err() == nil {
		d.tally.add("complete", code)
	}
	return code < 300
}

// upgradeFlood keeps the server hashing: at UpgradesPerS, open loop,
// POST /v1/auth/upgrade with a guest's token, a random password and an
// email that is taken (argon2 runs, then the email conflicts, so the
// guest stays a guest for the next try), and POST /v1/auth/password of
// the attacker's own account with a wrong current password.
func (d *doorAttack) upgradeFlood(ctx context.Context) {
	taken := []string{d.a.own.email, d.a.honest.email}
	paced(ctx, d.cfg.UpgradesPerS, floodWorkers(d.cfg.UpgradesPerS), d.dropped, func(i int) {
		if !d.spend() {
			return
		}
		pw := "guess-" + strconv.FormatUint(rand.Uint64(), 36)
		if i%2 == 0 || d.a.own.token == "" {
			body, _ := json.Marshal(map[string]string{"email": taken[rand.IntN(len(taken))], "password": pw, "display_name": "Flood"})
			code, _ := d.a.post(ctx, "/v1/auth/upgrade", attackerAddr, d.a.guestToken(i), body, nil)
			if ctx.Err() == nil {
				d.tally.add("upgrade", code)
			}
			return
		}
		body, _ := json.Marshal(map[string]string{"current_password": pw, "new_password": "new-" + pw})
		code, _ := d.a.post(ctx, "/v1/auth/password", attackerAddr, d.a.own.token, body, nil)
		if ctx.Err() == nil {
			d.tally.add("password", code)
		}
	})
}

// worldClusters asks for the clusters of the whole world at low zoom
// (0–6, the coarsest grids the API allows over it), ClusterConc at once,
// each as soon as the last answered; the viewport moves by a hair each
// time, so no cache or ETag answers for it.
func (d *doorAttack) worldClusters(ctx context.Context) {
	var wg sync.WaitGroup
	for range d.cfg.ClusterConc {
		wg.Go(func() {
			for ctx.Err() == nil && d.spend() {
				j := rand.Float64() * 0.01
				b := bbox{minLng: -180 + j, minLat: -85 + j, maxLng: 180 - j, maxLat: 85 - j}
				zoom := strconv.FormatFloat(float64(rand.IntN(700))/100, 'f', 2, 64) // 0.00–6.99: 7 is too fine for the world
				code := d.a.get(ctx, "/v1/guides/clusters?bbox="+b.param()+"&zoom="+zoom)
				if ctx.Err() != nil {
					return
				}
				d.tally.add("clusters", code)
				if code == 0 || rejected(code) {
					sleepCtx(ctx, refusedPause)
				}
			}
		})
	}
	wg.Wait()
}

// refreshFlood sends POST /v1/auth/refresh at RefreshesPerS, open loop,
// over the attacker's spare sessions: as a client that retries, each
// session's token is sent again and again, and the new one a success
// returns is taken up; one in four is a made-up token.
func (d *doorAttack) refreshFlood(ctx context.Context) {
	var mu sync.Mutex
	cur := d.a.spareRefresh()
	paced(ctx, d.cfg.RefreshesPerS, floodWorkers(d.cfg.RefreshesPerS), d.dropped, func(i int) {
		if !d.spend() {
			return
		}
		activity, tok := "refresh", ""
		if i%4 == 3 || len(cur) == 0 {
			activity, tok = "refresh_made_up", "gpr_"+strconv.FormatUint(rand.Uint64(), 36)+strconv.FormatUint(rand.Uint64(), 36)
		} else {
			mu.Lock()
			tok = cur[i%len(cur)]
			mu.Unlock()
		}
		body, _ := json.Marshal(map[string]string{"refresh_token": tok})
		var s struct {
			RefreshToken string `json:"refresh_token"`
		}
		code, _ := d.a.post(ctx, "/v1/auth/refresh", attackerAddr, "", body, &s)
		if ctx.Err() != nil {
			return
		}
		d.tally.add(activity, code)
		if code == http.StatusOK && s.RefreshToken != "" && activity == "refresh" {
			mu.Lock()
			cur[i%len(cur)] = s.RefreshToken
			mu.Unlock()
		}
	})
}

// floodWorkers are enough senders for perS answers that take up to a
// second each (a refused argon2 slot waits that long), within bounds.
func floodWorkers(perS float64) int { return min(max(64, int(perS)), 1024) }

// paced calls fn(i) at perS a second on workers goroutines, open loop: a
// slow answer does not slow the sender down; an arrival with every worker
// busy is given to dropped (the generator, not the server, is the
// limit). It returns when ctx ends, after every call has returned.
func paced(ctx context.Context, perS float64, workers int, dropped func(), fn func(i int)) {
	arrivals := make(chan int, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range arrivals {
				fn(i)
			}
		})
	}
	defer wg.Wait()
	defer close(arrivals)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	per, due := perS/100, 0.0
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for due += per; due >= 1; due-- {
			select {
			case arrivals <- i:
				i++
			default:
				dropped()
			}
		}
	}
}

func (a *attacker) get(ctx context.Context, path string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+path, nil)
	if err != nil {
		return 0
	}
	req.Header.Set("X-Forwarded-For", attackerAddr)
	return a.send(ctx, req)
}

func (a *attacker) put(ctx context.Context, rawURL string, body []byte) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	return a.send(ctx, req)
}

// send does req within 10 s and returns its status (0: no answer).
func (a *attacker) send(ctx context.Context, req *http.Request) int {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := a.hc.Do(req.WithContext(rctx))
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// guestToken is the i-th of the first half of the attacker's guests (the
// refresh flood revokes the sessions of the second half).
func (a *attacker) guestToken(i int) string {
	half := max(1, len(a.tokens)/2)
	return a.tokens[i%half]
}

// spareRefresh is a copy of the refresh tokens of the second half.
func (a *attacker) spareRefresh() []string {
	half := len(a.refresh) / 2
	if len(a.refresh) < 2 {
		half = 0
	}
	return append([]string(nil), a.refresh[half:]...)
}
