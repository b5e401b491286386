package main

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	// A command name may hold spaces and parentheses; utime 250, stime 50,
	// cutime 100, cstime 0 ticks.
	line := "4242 (guide post) (x)) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 100 0 20 0 12 0 100 0 0"
	got, err := parseProcStat(line)
	if err != nil || got != 4 {
		t.Fatalf("parseProcStat = %v, %v; want 4 s", got, err)
	}
	if _, err := parseProcStat("4242 (short) S 1"); err == nil {
		t.Error("a short line was accepted")
	}
	if v := procCPU(os.Getpid()); v < 0 {
		t.Errorf("procCPU of this process = %v", v)
	}
}

func TestCPUSplitParts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := cpuMark{at: t0, hostBusy: 10, hostAll: 30, hostOK: true, api: 1, worker: 0.5, gen: 0}
	b := cpuMark{at: t0.Add(2 * time.Second), hostBusy: 14, hostAll: 34, hostOK: true, api: 2, worker: 1.5, gen: 0.4}
	s := cpuSplit(a, b, -1, false)
	want := CPUSplit{Available: true, HostCores: s.HostCores, Server: 0.5, Worker: 0.5, Generator: 0.2, Others: 0.8, Idle: 0,
		ServerFrom: "proc", WorkerFrom: "proc"}
	if s != want {
		t.Errorf("split %+v\nwant  %+v", s, want)
	}
	// Not started here: the server from /metrics, the worker unknown (in others).
	a.api, b.api, a.worker, b.worker = -1, -1, -1, -1
	s = cpuSplit(a, b, 1.2, false)
	if s.Server != 0.6 || s.ServerFrom != "metrics" || s.WorkerFrom != "" || s.Others != 1.2 {
		t.Errorf("split without pids %+v", s)
	}
	if got := s.Label(); got != "0.60 / ? / 0.20 / 1.20 of "+strconv.Itoa(s.HostCores) {
		t.Errorf("label %q", got)
	}
	if got := cpuSplit(a, b, 1.2, true).Label(); got != "0.60 / – / 0.20 / 1.20 of "+strconv.Itoa(s.HostCores) {
		t.Errorf("label with the worker paused %q", got)
	}
}
