package main

import (
	"io"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"upload", "-vus", "5", "-photo-sizes", "0.5,2", "-ramp", "0s", "-duration", "10s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Scenario != "upload" || cfg.VUs != 5 || len(cfg.PhotoSizes) != 2 || cfg.PhotoSizes[1] != 2_000_000 {
		t.Errorf("cfg %+v", cfg)
	}
	if cfg.Ramp != 0 || cfg.Think != unset || cfg.Duration != 10*time.Second {
		t.Errorf("ramp %v think %v duration %v", cfg.Ramp, cfg.Think, cfg.Duration)
	}
	cfg, err = parseFlags([]string{"-rate", "50", "nearby"}, io.Discard)
	if err != nil || cfg.Scenario != "nearby" || cfg.Rate != 50 {
		t.Errorf("flags first: %+v %v", cfg, err)
	}
	cfg, _ = parseFlags([]string{"bench"}, io.Discard)
	if cfg.StartServer != "auto" {
		t.Errorf("bench start-server %q, want auto", cfg.StartServer)
	}
	if _, err := parseFlags([]string{"read", "extra"}, io.Discard); err == nil {
		t.Error("stray argument accepted")
	}
	if _, err := parseFlags(nil, io.Discard); err == nil {
		t.Error("missing scenario accepted")
	}
}

func TestStepsResolve(t *testing.T) {
	cfg := defaultConfig()
	cfg.Scenario, cfg.StepLen, cfg.StepStart, cfg.StepMax, cfg.StepRefine = "steps", 10*time.Second, 5, 320, 0
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	if cfg.Duration != 70*time.Second || cfg.StepsOn != "nearby" {
		t.Errorf("7 steps of 10 s: duration %v, on %q", cfg.Duration, cfg.StepsOn)
	}
	cfg.Scenario, cfg.Duration, cfg.StepRefine = "steps", 0, 2
	if err := cfg.resolve(); err != nil || cfg.Duration != 70*time.Second+2*refineAllowance(10*time.Second) {
		t.Errorf("7 steps of 10 s and 2 refining: duration %v %v", cfg.Duration, err)
	}
	cfg = defaultConfig()
	cfg.Scenario, cfg.StepLen, cfg.Duration = "steps", 10*time.Second, 25*time.Second
	if err := cfg.resolve(); err != nil || cfg.Duration != 25*time.Second {
		t.Errorf("-duration bounds the climb: %v %v", cfg.Duration, err)
	}
	cfg = defaultConfig()
	cfg.Scenario = "coldstart"
	if err := cfg.resolve(); err != nil || cfg.StepsOn != "mixed" || cfg.Rate != 200 {
		t.Errorf("coldstart: on %q rate %v %v", cfg.StepsOn, cfg.Rate, err)
	}
}

func TestCommandLineQuoting(t *testing.T) {
	got := commandLine([]string{"/tmp/go-build123/b001/exe/loadtest", "read", "-target", "http://127.0.0.1:8080", "-out", "my dir"})
	want := "bin/loadtest read -target http://127.0.0.1:8080 -out 'my dir'"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAlsoSpreadsUsersOverProcesses(t *testing.T) {
	cfg, err := parseFlags([]string{"mixed", "-also", "http://127.0.0.1:9002/, http://127.0.0.1:9003"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Also) != 2 || cfg.Also[0] != "http://127.0.0.1:9002" {
		t.Fatalf("Also = %q", cfg.Also)
	}
	c := &client{base: "A", also: []string{"B", "C"}}
	seen := map[string]int{}
	for i := range 6 {
		u := &user{idx: i}
		if c.baseFor(request{user: u}) != c.baseFor(request{user: u}) {
			t.Fatalf("user %d moved between processes", i)
		}
		seen[c.baseFor(request{user: u})]++
		seen[c.baseFor(request{})]++
	}
	if seen["A"] != 4 || seen["B"] != 4 || seen["C"] != 4 {
		t.Fatalf("spread = %v, want 4 each", seen)
	}
}

// -abuse-doors takes doors in any order and runs them in doorOrder; an
// unknown door or an empty list is refused, and the side doors' time is in
// the run's hard deadline.
func TestAbuseDoorsFlag(t *testing.T) {
	cfg, err := parseFlags([]string{"abuse", "-abuse-doors", "upload-flood, idle-body", "-abuse-door-duration", "5s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	if got := cfg.Attack.Doors; len(got) != 2 || got[0] != "idle-body" || got[1] != "upload-flood" {
		t.Errorf("doors %v, want [idle-body upload-flood]", got)
	}
	mixedOnly := cfg
	mixedOnly.Attack.Doors = []string{mixedDoor}
	if cfg.Attack.DoorSeconds != 5 || cfg.hardDeadline() < mixedOnly.hardDeadline()+2*2*5*time.Second {
		t.Errorf("door half %v s; deadline %v, without side doors %v", cfg.Attack.DoorSeconds, cfg.hardDeadline(), mixedOnly.hardDeadline())
	}
	all := defaultConfig()
	all.Scenario = "abuse"
	if err := all.resolve(); err != nil || len(all.Attack.Doors) != len(doorOrder) {
		t.Errorf("default doors %v: %v", all.Attack.Doors, err)
	}
	for _, doors := range []string{"idle-body,front-door", ","} {
		cfg, err := parseFlags([]string{"abuse", "-abuse-doors", doors}, io.Discard)
		if err == nil {
			err = cfg.resolve()
		}
		if err == nil {
			t.Errorf("-abuse-doors %q accepted", doors)
		}
	}
}
