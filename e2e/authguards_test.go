package e2e

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// fromAddr is a client of base whose connections come from ip
// (clientFrom), so the server counts it as another address.
func fromAddr(t *testing.T, base, ip string) *guideAPI {
	a := newGuideAPI(t, base)
	a.hc.Transport = clientFrom(ip).Transport
	return a
}

type sessionAnswer struct {
	User         struct{ ID string } `json:"user"`
	AccessToken  string              `json:"access_token"`
	RefreshToken string              `json:"refresh_token"`
}

// A flood of password changes (a stolen token guessing current_password)
// and of upgrades to a taken email, all from one address, leaves another
// address's log-in answering 200 about as fast as before. The failure
// limits are lifted so that only the in-flight cap stands between the
// flood and the hashing slots: without it, each flood request takes an
// argon2 slot, and the honest log-in waits past its second and gets 503.
func TestPasswordRouteFloodLeavesOtherLoginsAlone(t *testing.T) {
	env := append(stackEnv(t, testkit.RedisDBE2E),
		"RATE_LOGIN_FAILURES_PER_IP=1000000/1m", "RATE_LOGIN_FAILURES_PER_EMAIL=1000000/1m")
	p := testkit.Start(t, env, freeAddr(t), "serve")
	flood, honest := newGuideAPI(t, p.URL), fromAddr(t, p.URL, "127.0.0.2")

	account := map[string]any{"email": "honest@example.com", "password": "correct horse", "display_name": "H"}
	if code, raw := honest.call("POST", "/v1/auth/signup", "", account, nil); code != 201 {
		t.Fatalf("honest sign-up: %d %s", code, raw)
	}
	var victim sessionAnswer
	if code, raw := flood.call("POST", "/v1/auth/signup", "", map[string]any{"email": "victim@example.com",
		"password": "victim password", "display_name": "V"}, &victim); code != 201 {
		t.Fatalf("victim sign-up: %d %s", code, raw)
	}
	_, guest := flood.guest()
	login := func() (int, time.Duration) {
		start := time.Now()
		code, _ := honest.call("POST", "/v1/auth/login", "", map[string]any{"email": "honest@example.com", "password": "correct horse"}, nil)
		return code, time.Since(start)
	}
	var before time.Duration
	for range 3 {
		code, took := login()
		if code != 200 {
			t.Fatalf("log-in before the flood: %d", code)
		}
		before = max(before, took)
	}

	var stop atomic.Bool
	var mu sync.Mutex
	codes := map[string]map[int]int{"password": {}, "upgrade": {}}
	var wg sync.WaitGroup
	for i := range 48 {
		wg.Go(func() {
			route, path, token, body := "password", "/v1/auth/password", victim.AccessToken, map[string]any{
				"current_password": "guess", "new_password": "whatever new"}
			if i%4 == 0 {
				route, path, token, body = "upgrade", "/v1/auth/upgrade", guest, map[string]any{
					"email": "honest@example.com", "password": "a password", "display_name": "G"}
			}
			for !stop.Load() {
				code, _ := flood.call("POST", path, token, body, nil)
				mu.Lock()
				codes[route][code]++
				mu.Unlock()
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // the flood at full strength
	var during []time.Duration
	for range 5 {
		code, took := login()
		during = append(during, took)
		if code != 200 {
			t.Errorf("log-in from another address during the flood: %d after %s", code, took)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("honest log-in: slowest of 3 before %s, during the flood %v; flood answers %v", before, during, codes)
	for _, took := range during {
		// The hashing-slot wait alone is 1 s: a log-in starved by the
		// flood answers 503 after it, or crawls behind the queue.
		if took > 3*time.Second {
			t.Errorf("a log-in during the flood took %s (before: %s)", took, before)
		}
	}
	if codes["password"][429] == 0 || codes["upgrade"][409] == 0 {
		t.Errorf("flood answers %v: want password changes refused (429) beyond the in-flight cap, and taken-email upgrades 409", codes)
	}
	if codes["password"][200] != 0 || codes["upgrade"][200] != 0 {
		t.Fatalf("a flood request succeeded: %v", codes)
	}
}
