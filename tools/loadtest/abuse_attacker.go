package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// attackerAddr is the attacker's address, sent as X-Forwarded-For: the
// server must trust the generator as a proxy (HTTP_TRUSTED_PROXIES) to
// tell the attacker from the well-behaved users, as it would behind a load
// balancer.
const attackerAddr = "203.0.113.66"

// attackConfig is what the attacker does at once.
type attackConfig struct {
	SlowUploads  int     `json:"slow_uploads"`    // bodies trickling at SlowRate
	SlowRate     int     `json:"slow_rate_bps"`   // bytes/s of each slow body
	LoginsPerS   float64 `json:"logins_per_s"`    // wrong-password log-ins
	CraftedEvery float64 `json:"crafted_every_s"` // one hostile file each (0: none)
	Scans        int     `json:"scan_bomb_scans"`

	// The side doors (abuse_doors.go): which run, each half's length, the
	// probe's rate, each attack's strength and its bound on requests.
	Doors         []string      `json:"doors"`
	DoorTime      time.Duration `json:"-"`
	DoorSeconds   float64       `json:"door_half_s"`
	ProbeRate     float64       `json:"probe_rate"`
	IdleConns     int           `json:"idle_conns"`
	UploadFloods  int           `json:"upload_flood_loops"`
	UpgradesPerS  float64       `json:"upgrades_per_s"`
	ClusterConc   int           `json:"cluster_conc"`
	RefreshesPerS float64       `json:"refreshes_per_s"`
	DoorMax       int           `json:"door_max_requests"`
	Floors        bool          `json:"floors"` // a floor half for the doors this host bounds
}

// attacker runs every attack until its context ends; stop joins them all.
type attacker struct {
	cfg     attackConfig
	base    string
	hc      *http.Client
	tokens  []string
	refresh []string // the guests' refresh tokens, as tokens
	files   [][]byte
	victims []string
	honest  struct{ email, password string }
	own     struct{ email, token string } // the attacker's own account ("": none)

	mu     sync.Mutex
	counts map[string]map[string]int // activity → status → answers
	wg     sync.WaitGroup
	cancel context.CancelFunc
	start  time.Time
}

func newAttacker(base string, cfg attackConfig) *attacker {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 512, DisableCompression: true,
	}
	return &attacker{cfg: cfg, base: base, hc: &http.Client{Transport: tr, Timeout: 5 * time.Minute},
		counts: map[string]map[string]int{}}
}

// prepare makes the attacker's guest accounts (as many as its address is
// allowed), the hostile files, and an honest account whose owner logs in
// throughout from an address of its own.
func (a *attacker) prepare(ctx context.Context, nonce string) error {
	for range 64 {
		var s sessionAnswer
		code, _ := a.post(ctx, "/v1/auth/guest", attackerAddr, "", []byte("{}"), &s)
		if code != 201 {
			break // the address's guest allowance is spent
		}
		a.tokens, a.refresh = append(a.tokens, s.AccessToken), append(a.refresh, s.RefreshToken)
	}
	if len(a.tokens) == 0 {
		return fmt.Errorf("abuse: the attacker could not create a single guest account")
	}
	a.files = [][]byte{scanBombJPEG(4000, 3000, a.cfg.Scans), inflateBombPNG(7000, 7000)}
	for i := range 8 {
		a.victims = append(a.victims, fmt.Sprintf("victim-%d-%s@example.com", i, nonce))
	}
	a.honest.email, a.honest.password = "honest-"+nonce+"@example.com", "correct horse battery"
	body, _ := json.Marshal(map[string]string{"email": a.honest.email, "password": a.honest.password, "display_name": "Honest"})
	if code, _ := a.post(ctx, "/v1/auth/signup", "198.51.100.10", "", body, nil); code != 201 {
		return fmt.Errorf("abuse: honest account signup: HTTP %d", code)
	}
	// The attacker's own account, whose password the upgrade flood guesses
	// at; without it (its address's sign-ups spent) that flood only upgrades.
	own := "attacker-" + nonce + "@example.com"
	body, _ = json.Marshal(map[string]string{"email": own, "password": "attacker's own one", "display_name": "Attacker"})
	var s sessionAnswer
	if code, _ := a.post(ctx, "/v1/auth/signup", attackerAddr, "", body, &s); code == 201 {
		a.own.email, a.own.token = own, s.AccessToken
	}
	return nil
}

// sessionAnswer is the part of a session the attacker keeps.
type sessionAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

func (a *attacker) run(ctx context.Context) {
	ctx, a.cancel = context.WithCancel(ctx)
	a.start = time.Now()
	for i := range a.cfg.SlowUploads {
		a.wg.Go(func() { a.slowUploads(ctx, a.tokens[i%len(a.tokens)]) })
	}
	a.wg.Go(func() { a.logins(ctx) })
	if a.cfg.CraftedEvery > 0 {
		a.wg.Go(func() { a.crafted(ctx) })
	}
	a.wg.Go(func() { a.honestLogins(ctx) })
}

// stop ends every attack and waits for them; the counts are final after.
func (a *attacker) stop() AttackSummary {
	a.cancel()
	a.wg.Wait()
	took := time.Since(a.start).Seconds()
	s := AttackSummary{Config: a.cfg, Accounts: len(a.tokens), Answers: a.counts, Seconds: round(took, 1)}
	for _, n := range a.counts["login"] {
		s.LoginsPerS += float64(n)
	}
	s.LoginsPerS = round(s.LoginsPerS/took, 1)
	return s
}

func (a *attacker) count(activity string, code int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.counts[activity] == nil {
		a.counts[activity] = map[string]int{}
	}
	a.counts[activity][strconv.Itoa(code)]++
}

// slowUploads keeps one body trickling at SlowRate, starting another when
// the server cuts or refuses it.
func (a *attacker) slowUploads(ctx context.Context, token string) {
	for ctx.Err() == nil {
		code := a.slowUpload(ctx, token)
		if ctx.Err() != nil {
			return
		}
		a.count("slow_upload", code)
		if code == 429 || code == 503 || code == 0 {
			sleepCtx(ctx, time.Second)
		}
	}
}

func (a *attacker) slowUpload(ctx context.Context, token string) int {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequestWithContext(ctx, "POST", a.base+"/v1/media", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Forwarded-For", attackerAddr)
	var wg sync.WaitGroup
	wg.Go(func() {
		part, err := mw.CreateFormFile("file", "slow.jpg")
		if err != nil {
			return // answered before the body began
		}
		chunk := make([]byte, max(1, a.cfg.SlowRate/4))
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			case <-t.C:
			}
			if _, err := part.Write(chunk); err != nil {
				return // the server answered and the request is over
			}
		}
	})
	defer wg.Wait()
	defer pr.Close() // unblocks the writer once the answer is in
	resp, err := a.hc.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// logins sends wrong passwords for a few accounts at LoginsPerS, open loop:
// a slow answer does not slow the attacker down.
func (a *attacker) logins(ctx context.Context) {
	dropped := func() { a.count("login_dropped", 0) } // every worker busy: the generator, not the server, is the limit
	paced(ctx, a.cfg.LoginsPerS, 128, dropped, func(i int) {
		body, _ := json.Marshal(map[string]string{"email": a.victims[i%len(a.victims)], "password": "guess-" + strconv.Itoa(i)})
		code, _ := a.post(ctx, "/v1/auth/login", attackerAddr, "", body, nil)
		if ctx.Err() == nil {
			a.count("login", code)
		}
	})
}

// crafted uploads a hostile file (distinct bytes each time) every
// CraftedEvery seconds, rotating over the attacker's accounts.
func (a *attacker) crafted(ctx context.Context) {
	every := time.Duration(a.cfg.CraftedEvery * float64(time.Second))
	for i := 0; sleepCtx(ctx, every); i++ {
		data := withNonce(a.files[i%len(a.files)], fmt.Sprintf("guidepost-load abuse %d %d", time.Now().UnixNano(), i))
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		part, _ := mw.CreateFormFile("file", "crafted")
		part.Write(data)
		mw.Close()
		req, _ := http.NewRequestWithContext(ctx, "POST", a.base+"/v1/media", &b)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+a.tokens[i%len(a.tokens)])
		req.Header.Set("X-Forwarded-For", attackerAddr)
		code := 0
		if resp, err := a.hc.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			code = resp.StatusCode
		}
		if ctx.Err() == nil {
			a.count("crafted_upload", code)
		}
	}
}

// honestLogins logs the honest account in twice a second from its own
// address: it must keep getting in while the attacker guesses others'.
func (a *attacker) honestLogins(ctx context.Context) {
	body, _ := json.Marshal(map[string]string{"email": a.honest.email, "password": a.honest.password})
	for sleepCtx(ctx, 500*time.Millisecond) {
		code, _ := a.post(ctx, "/v1/auth/login", "198.51.100.10", "", body, nil)
		if ctx.Err() == nil {
			a.count("honest_login", code)
		}
	}
}

func (a *attacker) post(ctx context.Context, path, from, token string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", a.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", from)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := a.hc.Do(req.WithContext(rctx))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode < 300 {
		err = json.NewDecoder(resp.Body).Decode(out)
	}
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}
