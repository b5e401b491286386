// Package worker runs guidepost's background work on asynq: the derive
// and purge handlers (shaped like HTTP handlers: decode the payload, call
// the service with ctx, map errors to retry or not), the render child, the
// sweeper, and their metrics. The tasks come from package queue, whose
// names and payloads both sides share. Any number of worker processes on
// any number of machines share one Redis queue and one PostgreSQL.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/queue"
)

// Deps are what a worker process runs.
type Deps struct {
	Redis   redis.UniversalClient // the app's go-redis client
	Handler asynq.Handler
	Sweeper *Sweeper // nil: no sweeps
	Log     *slog.Logger
}

// Config tunes one worker process.
type Config struct {
	// Concurrency is WORKER_CONCURRENCY. asynq runs twice as many tasks, so
	// downloads and uploads overlap with renders; the media service's decode
	// semaphore, sized from the same number, bounds CPU and memory.
	Concurrency int
	// ShutdownTimeout is how long running tasks get to finish on SIGTERM;
	// tasks still running then go back to the queue for another worker.
	ShutdownTimeout time.Duration
}

// DefaultConfig has every default: one render slot per CPU. The shutdown
// timeout is the process's (SHUTDOWN_TIMEOUT), which the API shares.
func DefaultConfig() Config { return Config{Concurrency: runtime.NumCPU()} }

// Worker is an asynq server plus the sweeper.
type Worker struct {
	srv     *asynq.Server
	handler asynq.Handler
	sweeper *Sweeper
	log     *slog.Logger
}

// New builds a worker on the app's go-redis client.
func New(deps Deps, cfg Config) *Worker {
	guidepost.Default(&cfg.Concurrency, DefaultConfig().Concurrency)
	log := guidepost.Logger(deps.Log)
	srv := asynq.NewServerFromRedisClient(deps.Redis, asynq.Config{
		Concurrency:     2 * cfg.Concurrency,
		Queues:          map[string]int{queue.Media: 1},
		RetryDelayFunc:  retryDelay,
		ShutdownTimeout: cfg.ShutdownTimeout,
		// Poll a little faster than asynq's 1 s and 5 s defaults: a photo's
		// time to ready is what the user waits for, and each poll is one
		// small Lua call per process.
		TaskCheckInterval:        500 * time.Millisecond,
		DelayedTaskCheckInterval: time.Second,
		Logger:                   slogAdapter{log},
		LogLevel:                 asynq.WarnLevel,
		ErrorHandler:             asynq.ErrorHandlerFunc(logTaskError(log)),
	})
	return &Worker{srv: srv, handler: deps.Handler, sweeper: deps.Sweeper, log: log}
}

// retryDelay keeps asynq's exponential backoff for real failures, but a task
// whose worker died (lease expired) has already waited a minute for the
// lease to lapse, so it runs again at once.
func retryDelay(n int, err error, t *asynq.Task) time.Duration {
	if errors.Is(err, asynq.ErrLeaseExpired) {
		return time.Second
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}

// logTaskError logs each failed run of a task, of any type. asynq itself
// says so only at debug, so a photo waiting for its retry would show
// nothing of why. A task the handler gave up on (SkipRetry: a bad photo, a
// bad payload) is the input's fault and its service has said so already:
// info; one the queue runs again, or never again after its last retry:
// warn.
func logTaskError(log *slog.Logger) func(context.Context, *asynq.Task, error) {
	return func(ctx context.Context, t *asynq.Task, err error) {
		id, _ := asynq.GetTaskID(ctx)
		retried, _ := asynq.GetRetryCount(ctx)
		maxRetry, _ := asynq.GetMaxRetry(ctx)
		level, msg := slog.LevelWarn, "worker: task failed, the queue runs it again"
		switch {
		case errors.Is(err, asynq.SkipRetry):
			level, msg = slog.LevelInfo, "worker: task failed for good"
		case retried >= maxRetry:
			msg = "worker: task failed its last try"
		}
		log.Log(ctx, level, msg, "type", t.Type(), "task_id", id, "retried", retried, "max_retry", maxRetry, "err", err)
	}
}

// Run processes tasks and sweeps until ctx ends, then lets running tasks
// finish within the shutdown timeout.
func (w *Worker) Run(ctx context.Context) error {
	// Start, not Run: asynq's Run installs its own signal handling, and the
	// process already turns signals into ctx.
	if err := w.srv.Start(w.handler); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	w.log.Info("worker started", "queue", queue.Media)
	var wg sync.WaitGroup
	if w.sweeper != nil {
		wg.Go(func() { w.sweeper.Run(ctx) })
	}
	<-ctx.Done()
	w.log.Info("worker stopping; running tasks get the shutdown timeout to finish")
	w.srv.Shutdown()
	wg.Wait()
	return nil
}

// slogAdapter lets asynq log through slog.
type slogAdapter struct{ log *slog.Logger }

func (a slogAdapter) Debug(args ...any) { a.log.Debug("asynq: " + fmt.Sprint(args...)) }
func (a slogAdapter) Info(args ...any)  { a.log.Info("asynq: " + fmt.Sprint(args...)) }
func (a slogAdapter) Warn(args ...any)  { a.log.Warn("asynq: " + fmt.Sprint(args...)) }
func (a slogAdapter) Error(args ...any) { a.log.Error("asynq: " + fmt.Sprint(args...)) }

// Fatal is asynq's contract: log, then exit.
func (a slogAdapter) Fatal(args ...any) {
	a.log.Error("asynq: fatal: " + fmt.Sprint(args...))
	os.Exit(1)
}
