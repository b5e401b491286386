package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// CPUSplit is where the host's CPU went during the load, in cores (CPU
// seconds per second of load): the API server, the photo worker (its
// render children included), the load generator, and others — PostgreSQL,
// Redis, the S3 server and whatever else the host runs — as the host's busy
// time minus the three. A part the tool cannot see is counted in others and
// flagged.
type CPUSplit struct {
	Available  bool    `json:"available"`
	HostCores  int     `json:"host_cores"`
	Server     float64 `json:"server"`
	Worker     float64 `json:"worker"`
	Generator  float64 `json:"generator"`
	Others     float64 `json:"others"`
	Idle       float64 `json:"idle"`
	ServerFrom string  `json:"server_from"` // "proc": the process the tool started; "metrics": its /metrics; "": unknown
	WorkerFrom string  `json:"worker_from"` // "proc", "paused" (no worker ran), or "": unknown, in others
}

// userHZ is the unit of /proc CPU times. Linux reports them in USER_HZ,
// 100 on every architecture Go runs on, whatever the kernel's tick.
const userHZ = 100

// cpuMark is one reading of every CPU counter the split needs.
type cpuMark struct {
	at                time.Time
	hostBusy, hostAll float64 // seconds, summed over CPUs
	hostOK            bool
	api, worker       float64 // seconds, -1: not readable
	gen               float64
}

// markCPU reads the counters now; apiPid and workerPid are 0 when the
// tool did not start them.
func markCPU(apiPid, workerPid int) cpuMark {
	m := cpuMark{at: time.Now(), api: -1, worker: -1, gen: generatorCPU()}
	m.hostBusy, m.hostAll, m.hostOK = hostCPU()
	if apiPid > 0 {
		m.api = procCPU(apiPid)
	}
	if workerPid > 0 {
		m.worker = procCPU(workerPid)
	}
	return m
}

// cpuSplit is the split between two marks. serverMetrics is the server's
// CPU seconds from /metrics over the same span (-1: unknown), used when the
// tool did not start the server; workerPaused says no worker ran.
func cpuSplit(a, b cpuMark, serverMetrics float64, workerPaused bool) CPUSplit {
	s := CPUSplit{HostCores: runtime.NumCPU()}
	secs := b.at.Sub(a.at).Seconds()
	if !a.hostOK || !b.hostOK || secs <= 0 {
		return s
	}
	s.Available = true
	cores := func(v float64) float64 { return round(max(v, 0)/secs, 2) }
	known := b.gen - a.gen
	s.Generator = cores(b.gen - a.gen)
	switch {
	case a.api >= 0 && b.api >= 0:
		s.Server, s.ServerFrom = cores(b.api-a.api), "proc"
		known += b.api - a.api
	case serverMetrics >= 0:
		s.Server, s.ServerFrom = cores(serverMetrics), "metrics"
		known += serverMetrics
	}
	switch {
	case a.worker >= 0 && b.worker >= 0:
		s.Worker, s.WorkerFrom = cores(b.worker-a.worker), "proc"
		known += b.worker - a.worker
	case workerPaused:
		s.WorkerFrom = "paused"
	}
	busy := b.hostBusy - a.hostBusy
	s.Others = cores(busy - known)
	s.Idle = cores((b.hostAll - a.hostAll) - busy)
	return s
}

// Label is the split as a table cell: "server / worker / generator /
// others (of N cores)"; "–" is a paused worker, "?" a part counted in
// others.
func (s CPUSplit) Label() string {
	if !s.Available {
		return "n/a"
	}
	part := func(v float64, from string) string {
		switch from {
		case "":
			return "?"
		case "paused":
			return "–"
		}
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%s / %s / %.2f / %.2f of %d", part(s.Server, s.ServerFrom), part(s.Worker, s.WorkerFrom),
		s.Generator, s.Others, s.HostCores)
}

// hostCPU reads the busy and total CPU seconds of the host from /proc/stat
// (iowait counts as idle: a CPU waiting on a disk could run something else).
func hostCPU() (busy, all float64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 8 || f[0] != "cpu" {
		return 0, 0, false
	}
	var v [10]float64
	for i := 1; i < len(f) && i <= len(v); i++ {
		v[i-1], _ = strconv.ParseFloat(f[i], 64)
	}
	// user nice system idle iowait irq softirq steal (guest is within user)
	busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	all = busy + v[3] + v[4]
	return busy / userHZ, all / userHZ, true
}

// procCPU is a process's user+system CPU seconds, its reaped children's
// included (a worker's render children), or -1 when it cannot be read.
func procCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	v, err := parseProcStat(string(b))
	if err != nil {
		return -1
	}
	return v
}

// parseProcStat sums utime, stime, cutime and cstime (fields 14–17) of a
// /proc/<pid>/stat line; the command name (field 2) may hold spaces and
// parentheses, so fields are counted after its last ')'.
func parseProcStat(line string) (float64, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, errors.New("no command name")
	}
	f := strings.Fields(line[i+1:])
	if len(f) < 15 { // f[0] is field 3 (state)
		return 0, errors.New("short stat line")
	}
	var sum float64
	for _, s := range f[11:15] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum / userHZ, nil
}
