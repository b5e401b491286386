package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// TestAbuseSideDoorsAgainstTheRealBinary runs every side door briefly
// against the real binary, with the limits as shipped: the scenario must
// run each door's two halves, send its attack and tally the answers, and
// write its row. What the doors measure is not asserted: on a busy
// machine any latency may move, and on today's code some doors fail.
func TestAbuseSideDoorsAgainstTheRealBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real server")
	}
	env := realStackEnv(t, "WORKER_CONCURRENCY=1") // the limits as shipped
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	srv := testkit.Start(t, env, addr, "dev")

	side := doorOrder[1:]
	cfg := smokeConfig("abuse", srv.URL)
	cfg.VUs, cfg.Drain = 20, 10*time.Second
	cfg.Attack.Doors = side
	cfg.Attack.DoorTime, cfg.Attack.ProbeRate = 3*time.Second, 10
	cfg.Attack.IdleConns, cfg.Attack.UploadFloods, cfg.Attack.UpgradesPerS = 8, 2, 10
	cfg.Attack.ClusterConc, cfg.Attack.RefreshesPerS, cfg.Attack.DoorMax = 2, 20, 300
	sum := mustRun(t, cfg)

	a := sum.Abuse
	if a == nil || a.Mixed || len(a.Doors) != len(side) {
		t.Fatalf("abuse summary: %+v", a)
	}
	for i, r := range a.Doors {
		t.Log(r.line())
		if r.Door != side[i] {
			t.Errorf("door %d is %q, want %q", i, r.Door, side[i])
		}
		if r.Baseline.Requests == 0 || r.Attacked.Requests == 0 {
			t.Errorf("%s: probe requests alone %d, attacked %d", r.Door, r.Baseline.Requests, r.Attacked.Requests)
		}
		if r.Sent == 0 || len(r.Attacker) == 0 {
			t.Errorf("%s: the attacker sent %d, tallied %v", r.Door, r.Sent, r.Attacker)
		}
	}
	ans := func(door, activity string) map[string]int {
		return a.Doors[slices.Index(side, door)].Attacker[activity]
	}
	// Each attack reached the route it is about: answered, or (idle
	// bodies) still held when it stopped.
	for _, da := range [][2]string{{"idle-body", "idle_login"}, {"idle-body", "idle_me"}, {"upgrade-flood", "upgrade"},
		{"upgrade-flood", "password"}, {"world-clusters", "clusters"}, {"refresh-flood", "refresh"}, {"upload-flood", "start"}} {
		if len(ans(da[0], da[1])) == 0 {
			t.Errorf("%s: no %s request tallied: %v", da[0], da[1], a.Doors[slices.Index(side, da[0])].Attacker)
		}
	}
	if sum.Totals.Requests == 0 {
		t.Errorf("the run's totals (the probe's attacked halves) are empty")
	}
	// The doors this host bounds ran a floor half: the probe beside the
	// floor load, which reached its target.
	for door, activity := range map[string]string{"refresh-flood": "refresh", "upload-flood": "guest"} {
		r := a.Doors[slices.Index(side, door)]
		if r.Floor == nil || r.Floor.Requests == 0 || r.VsFloor == 0 {
			t.Errorf("%s: no floor half: %+v", door, r.Floor)
		}
		if door == "refresh-flood" && len(r.FloorLoad[activity]) == 0 {
			t.Errorf("%s: the floor server answered nothing: %v", door, r.FloorLoad)
		}
		if door == "upload-flood" && len(r.FloorLoad[activity]) != 0 {
			t.Errorf("%s: the floor's guest was refused: %v", door, r.FloorLoad)
		}
	}

	cfg.NoWrite, cfg.Out = false, t.TempDir()
	cfg.Benchmarks = filepath.Join(cfg.Out, "BENCHMARKS.md")
	if err := writeOutputs(&cfg, &sum); err != nil {
		t.Fatal(err)
	}
	row, err := os.ReadFile(cfg.Benchmarks)
	if err != nil {
		t.Fatal(err)
	}
	for _, door := range side {
		if !strings.Contains(string(row), door+" PASS") && !strings.Contains(string(row), door+" FAIL") &&
			!strings.Contains(string(row), door+" HOST") {
			t.Errorf("the BENCHMARKS row has no verdict for %s:\n%s", door, row)
		}
	}
}

// TestFloorServerReplaysTheRefusal: the floor answers with the bytes and
// headers it was given, whatever the path, in a process of its own.
func TestFloorServerReplaysTheRefusal(t *testing.T) {
	ans := recordedAnswer{Status: 429, Body: []byte(`{"type":"/problems/rate_limited"}`),
		Header: map[string]string{"Content-Type": "application/problem+json", "Retry-After": "7"}}
	srv, err := startFloorServer(t.Context(), ans)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	resp, err := http.Post(srv.base+"/v1/auth/refresh", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || string(body) != string(ans.Body) || resp.Header.Get("Retry-After") != "7" ||
		resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("floor answered %d %q %v", resp.StatusCode, body, resp.Header)
	}
}

// TestBoundByHost: a door holds beside its floor only when the floor
// alone is past the goal and the attack adds little to it, with no 5xx.
func TestBoundByHost(t *testing.T) {
	floor := &ProbePhase{}
	for _, c := range []struct {
		floorRatio, vsFloor float64
		fiveXX              int
		want                bool
	}{{2.0, 1.1, 0, true}, {2.0, 1.3, 0, false}, {1.2, 1.1, 0, false}, {2.0, 1.1, 3, false}} {
		r := DoorResult{Floor: floor, FloorRatio: c.floorRatio, VsFloor: c.vsFloor}
		r.Attacked.FiveXX = c.fiveXX
		if got := r.boundByHost(); got != c.want {
			t.Errorf("%+v: boundByHost %v, want %v", c, got, c.want)
		}
	}
	if (DoorResult{FloorRatio: 2, VsFloor: 1}).boundByHost() {
		t.Error("no floor half, yet bound by the host")
	}
}
