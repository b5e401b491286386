package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
)

// fleet is the guidepost processes this tool started: the API (`serve`)
// and the photo worker (`worker`), each a process of its own as in
// production, so their CPU is told apart and the worker can be paused
// while a scenario without uploads runs.
type fleet struct {
	cfg    *Config
	addr   string
	api    *serverProc
	worker *serverProc // nil while paused
	starts int         // worker starts, for distinct log names
}

// workerGrace bounds a worker's stop: asynq lets its active photos finish
// (or hands them back) within the worker's own SHUTDOWN_TIMEOUT, 20 s.
const workerGrace = 30 * time.Second

// startFleet migrates the database, then starts `serve` at base and a
// `worker` beside it.
func startFleet(ctx context.Context, cfg *Config, base string) (*fleet, error) {
	addr, err := hostPort(base)
	if err != nil {
		return nil, err
	}
	f := &fleet{cfg: cfg, addr: addr}
	if err := runOnce(ctx, cfg.ServerBin, "migrate", serverLogPath(cfg, "migrate")); err != nil {
		return nil, err
	}
	logPath := serverLogPath(cfg, "serve")
	if f.api, err = startServer(cfg.ServerBin, "serve", addr, logPath); err != nil {
		return nil, err
	}
	took, err := waitReady(ctx, base, f.api, cfg.ReadyTimeout, 50*time.Millisecond)
	if err != nil {
		f.stop()
		return nil, err
	}
	if err := f.resumeWorker(); err != nil {
		f.stop()
		return nil, err
	}
	cfg.Log.Info("started guidepost serve and worker", "addr", addr, "ready_after", took.Round(time.Millisecond), "log", logPath)
	return f, nil
}

// runOnce runs `bin mode` to completion (migrations), output to logPath.
func runOnce(ctx context.Context, bin, mode, logPath string) error {
	logf, err := openLog(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, bin, mode)
	cmd.Env, cmd.Stdout, cmd.Stderr = serverEnv(""), logf, logf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w (see %s)", bin, mode, err, logPath)
	}
	return nil
}

// pauseWorker stops the worker process; the queue keeps its backlog.
func (f *fleet) pauseWorker() {
	if f == nil || f.worker == nil {
		return
	}
	f.worker.stop(workerGrace)
	f.worker = nil
	f.cfg.Log.Info("worker paused")
}

// resumeWorker starts a worker unless one runs, and checks that it stays up.
func (f *fleet) resumeWorker() error {
	if f == nil || f.worker != nil {
		return nil
	}
	f.starts++
	logPath := serverLogPath(f.cfg, "worker-"+strconv.Itoa(f.starts))
	w, err := startServer(f.cfg.ServerBin, "worker", f.addr, logPath)
	if err != nil {
		return err
	}
	select {
	case <-w.done:
		w.stop(0)
		return fmt.Errorf("worker exited at start: %v (see %s)", w.err, logPath)
	case <-time.After(300 * time.Millisecond):
	}
	f.worker = w
	f.cfg.Log.Info("worker running", "log", logPath)
	return nil
}

func (f *fleet) stop() {
	if f == nil {
		return
	}
	f.pauseWorker()
	f.api.stop(20 * time.Second)
	f.api = nil
}

// pids are the processes whose CPU a run reports apart (0: not ours).
func (f *fleet) pids() (api, worker int) {
	if f == nil {
		return 0, 0
	}
	if f.api != nil {
		api = f.api.cmd.Process.Pid
	}
	if f.worker != nil {
		worker = f.worker.cmd.Process.Pid
	}
	return api, worker
}

// mediaQueue is the asynq queue the worker renders photos from.
const mediaQueue = "media"

// discardBacklog deletes the photo tasks still queued (pending, scheduled
// or retrying) in the Redis the fleet was started with, so the next
// scenario starts with an empty queue; photos being rendered finish. Their
// rows stay pending: the bench runs its worker with a MEDIA_PENDING_AGE
// longer than itself, so the sweeper does not queue them again.
func discardBacklog() (int, error) {
	url := os.Getenv("REDIS_URL")
	if url == "" || !strings.HasPrefix(url, "redis://") {
		return 0, errors.New("REDIS_URL is not a plain redis:// URL: the backlog stays queued")
	}
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		return 0, err
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	var n int
	for _, del := range []func(string) (int, error){insp.DeleteAllPendingTasks, insp.DeleteAllScheduledTasks, insp.DeleteAllRetryTasks} {
		k, err := del(mediaQueue)
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}
