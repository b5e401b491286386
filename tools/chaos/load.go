package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// loadConfig is one run of the load generator's mixed scenario, open loop.
type loadConfig struct {
	Rate     float64
	Duration time.Duration
	Drain    time.Duration
}

// summary is the part of tools/loadtest's summary.json the drills read.
type summary struct {
	Totals struct {
		Requests    int            `json:"requests"`
		OK          int            `json:"ok"`
		StatusCodes map[string]int `json:"status_codes"`
		Latency     struct {
			P50 float64 `json:"p50"`
			P99 float64 `json:"p99"`
		} `json:"latency_ms"`
	} `json:"totals"`
	Uploads *struct {
		Accepted int     `json:"accepted"`
		Ready    int     `json:"ready"`
		Failed   int     `json:"failed"`
		NotReady int     `json:"not_ready"`
		DrainS   float64 `json:"drain_s"`
	} `json:"uploads"`
	Likes *struct {
		Expected   int  `json:"expected"`
		Recorded   int  `json:"recorded"`
		Unknown    int  `json:"unknown"`
		Lost       int  `json:"lost"`
		Duplicated int  `json:"duplicated"`
		Verified   bool `json:"verified"`
	} `json:"likes"`
	Timeline []struct {
		T        int `json:"t"`
		Requests int `json:"requests"`
		Errors   int `json:"errors"`
	} `json:"timeline"`
	Steps *struct {
		HeldRate float64 `json:"held_rate"`
	} `json:"steps"`
}

// loadRun is a load generator running in the background.
type loadRun struct {
	started chan time.Time // when the load phase began (setup done)
	done    chan struct{}
	sum     summary
	err     error
}

// startLoad runs `loadtest <args>` against the fleet's API processes,
// spreading users over all of them, and reads its summary when it ends.
func (f *fleet) startLoad(ctx context.Context, name string, args ...string) *loadRun {
	out := filepath.Join(f.dir, "load-"+name)
	all := append([]string{"-target", f.apiURL(0)}, args...)
	if len(f.apiAddrs) > 1 {
		also := make([]string, 0, len(f.apiAddrs)-1)
		for i := 1; i < len(f.apiAddrs); i++ {
			also = append(also, f.apiURL(i))
		}
		all = append(all, "-also", strings.Join(also, ","))
	}
	all = append(all, "-out", out, "-benchmarks", "")
	r := &loadRun{started: make(chan time.Time, 1), done: make(chan struct{})}
	cmd := exec.CommandContext(ctx, f.loadBin, all...)
	cmd.Dir = f.root
	logf, err := os.Create(out + ".log")
	if err != nil {
		r.err = err
		close(r.done)
		return r
	}
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		r.err = err
		close(r.done)
		return r
	}
	go func() {
		defer close(r.done)
		defer logf.Close()
		watchStart(stderr, logf, r.started)
		if err := cmd.Wait(); err != nil {
			r.err = fmt.Errorf("loadtest %s: %v (see %s)", name, err, logf.Name())
		}
		r.sum, err = readSummary(out)
		if r.err == nil {
			r.err = err
		}
	}()
	return r
}

// watchStart copies the generator's log and reports the "load started" line.
func watchStart(r io.Reader, w io.Writer, started chan<- time.Time) {
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		fmt.Fprintln(w, sc.Text())
		if !sent && strings.Contains(sc.Text(), "load started") {
			started <- time.Now()
			sent = true
		}
	}
}

func readSummary(out string) (summary, error) {
	var s summary
	paths, _ := filepath.Glob(filepath.Join(out, "*", "summary.json"))
	if len(paths) == 0 {
		return s, fmt.Errorf("no summary.json under %s", out)
	}
	b, err := os.ReadFile(paths[len(paths)-1])
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

// mixedArgs are the generator's flags for a drill's load: app traffic at
// a fixed rate, small photos so the workers' backlog drains in seconds.
func mixedArgs(c loadConfig) []string {
	return []string{"mixed", "-rate", strconv.FormatFloat(c.Rate, 'f', -1, 64),
		"-duration", c.Duration.String(), "-drain", c.Drain.String(),
		"-photo-sizes", "0.5", "-hot-guides", "10", "-users", "200", "-timeout", "10s"}
}
