// Command chaos runs failover drills under load: two API processes and two
// workers against a private PostgreSQL, Redis under Sentinel and a private
// S3 server; the load generator's mixed traffic at half the measured
// capacity; then, one at a time, a fault: kill -9 an API process, kill -9 a
// worker mid-render, kill the Redis primary, stop S3 for 10 s, restart
// PostgreSQL, roll both API processes with SIGTERM; with a streaming
// replica serving reads: kill the replica, delay it by 5 s, kill the
// primary and promote the replica. Each drill reports
// requests, 5xx, p99, the seconds until errors stopped, photos accepted
// against ready, likes acknowledged against recorded.
//
//	bin/chaos                       # every drill (make chaos)
//	bin/chaos -drills api-kill,redis-failover -rate 40
//	bin/chaos -scaleout -photos 120 # photos/s with 1, 2, 3 workers
//
// make tools builds bin/chaos; run it from the repository's root.
//
// Nothing touches the shared PostgreSQL, Redis or S3 server: every
// dependency is started on spare ports under -dir and stopped at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func main() {
	var (
		rate     = flag.Float64("rate", 0, "load in requests/s (0: half the held step of a stepped mixed load)")
		duration = flag.Duration("duration", 40*time.Second, "load per drill")
		faultAt  = flag.Duration("fault-at", 10*time.Second, "when the fault strikes, into the load")
		drain    = flag.Duration("drain", 5*time.Minute, "bound on waiting for accepted photos after each drill")
		only     = flag.String("drills", "", "comma-separated drills (default: all): "+drillNames())
		dir      = flag.String("dir", "", "working folder (default: a new temporary one, removed unless -keep)")
		keep     = flag.Bool("keep", false, "keep the working folder (logs, summaries)")
		scale    = flag.Bool("scaleout", false, "measure photos/s on a fixed backlog with 1, 2 and 3 workers instead")
		photos   = flag.Int("photos", 120, "scaleout: photos in the backlog")
	)
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := repoRoot()
	if err != nil {
		fail(log, err)
	}
	work := *dir
	if work == "" {
		if work, err = os.MkdirTemp("", "guidepost-chaos-"); err != nil {
			fail(log, err)
		}
		if !*keep {
			defer os.RemoveAll(work)
		}
	}
	log.Info("working folder", "dir", work)
	command := "bin/chaos " + strings.Join(os.Args[1:], " ")
	if *scale {
		err = runScaleout(ctx, root, work, log, *photos, command)
	} else {
		err = runDrills(ctx, root, work, log, *rate, *duration, *faultAt, *drain, *only, command)
	}
	if err != nil {
		stop()
		fail(log, err)
	}
}

func fail(log *slog.Logger, err error) {
	log.Error("chaos failed", "err", err)
	os.Exit(1)
}

func drillNames() string {
	var n []string
	for _, d := range drills {
		n = append(n, d.name)
	}
	return strings.Join(n, ", ")
}

func runDrills(ctx context.Context, root, work string, log *slog.Logger, rate float64, dur, faultAt, drain time.Duration, only, command string) error {
	var list []drill
	for _, name := range strings.Split(only, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		d, ok := drillNamed(name)
		if !ok {
			return fmt.Errorf("no drill %q (have %s)", name, drillNames())
		}
		list = append(list, d)
	}
	if len(list) == 0 {
		list = drills
	}
	replica := false
	for _, d := range list {
		replica = replica || d.replica
	}
	f, err := startFleet(ctx, root, work, log, fleetConfig{APIs: 2, Workers: 2, WorkerConcurrency: 1, Replica: replica})
	if err != nil {
		return err
	}
	defer f.stop()
	held := 0.0
	if rate <= 0 {
		if held, err = f.capacity(ctx); err != nil {
			return err
		}
		rate = max(held/2, 5)
		log.Info("capacity measured", "held_step_req_s", held, "drill_rate", rate)
	}
	var rows []result
	for _, d := range list {
		log.Info("drill", "name", d.name, "rate", rate)
		r, err := runDrill(ctx, f, d, loadConfig{Rate: rate, Duration: dur, Drain: drain}, faultAt)
		if err != nil {
			return err
		}
		log.Info("drill done", "name", d.name, "requests", r.Requests, "5xx", r.Errors5xx, "no_answer", r.NoAns,
			"recovered_s", r.RecoveredS, "photos", fmt.Sprintf("%d/%d", r.Ready, r.Accepted), "nothing_lost", r.nothingLost())
		rows = append(rows, r)
	}
	md := drillTable(rows, held, dur, faultAt, command)
	fmt.Print(md)
	return os.WriteFile(filepath.Join(work, "chaos.md"), []byte(md), 0o644)
}

// capacity is the held step (p95 < 1 s, ≥ 90 % served) of a stepped mixed
// load over the fleet.
func (f *fleet) capacity(ctx context.Context) (float64, error) {
	lr := f.startLoad(ctx, "capacity", "steps", "-on", "mixed", "-step", "8s", "-step-start", "20", "-step-max", "640",
		"-photo-sizes", "0.5", "-hot-guides", "10", "-drain", "5m")
	<-lr.done
	if lr.err != nil {
		return 0, lr.err
	}
	if lr.sum.Steps == nil || lr.sum.Steps.HeldRate == 0 {
		return 0, fmt.Errorf("the stepped load held no step")
	}
	return lr.sum.Steps.HeldRate, nil
}

func drillTable(rows []result, held float64, dur, faultAt time.Duration, command string) string {
	var b strings.Builder
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "\n%s, commit %s, `%s`; %d cores, load average %s at the end.\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimSpace(string(commit)), command, runtime.NumCPU(),
		strings.Join(strings.Fields(string(load))[:3], " "))
	if held > 0 {
		fmt.Fprintf(&b, "Measured capacity (held step of a stepped mixed load over both API processes): %.0f req/s.\n", held)
	}
	fmt.Fprintf(&b, "Load per drill: mixed, %.0f req/s open loop for %s, the fault at %s.\n\n", rows[0].Rate, dur, faultAt)
	b.WriteString("| drill | requests | 5xx | no answer | p50 ms | p99 ms | errors stopped after s | photos accepted / ready | likes acknowledged / recorded (unknown) | nothing lost |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		rec := fmt.Sprintf("%.1f", r.RecoveredS)
		if r.RecoveredS < 0 {
			rec = "not within the load"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f | %.1f | %s | %d / %d | %d / %d (%d) | %s |\n",
			r.Drill, r.Requests, r.Errors5xx, r.NoAns, r.P50, r.P99, rec, r.Accepted, r.Ready,
			r.LikesAcked, r.LikesRecorded, r.LikesUnknown, yesNo(r.nothingLost()))
	}
	return b.String()
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// repoRoot is the service's checkout, from the working directory up: the
// first folder holding cmd/guidepost (tools/ has a go.mod of its own, so
// go.mod alone does not tell).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "cmd", "guidepost")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no cmd/guidepost above the working directory")
		}
		dir = parent
	}
}
