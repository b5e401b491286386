package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/objstore"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

// The implementations the media feature consumes, checked at compile time.
var (
	_ media.Blobs      = (*objstore.S3)(nil)
	_ media.Store      = (*gsql.Media)(nil)
	_ media.Keys       = (*gsql.IdempotencyKeys)(nil)
	_ media.Queue      = (*worker.Queue)(nil)
	_ worker.Locker    = (*gsql.Media)(nil)
	_ api.MediaService = (*media.Service)(nil)
)

// mediaSettings are the media feature's environment variables; the defaults
// suit production, tests shorten them.
type mediaSettings struct {
	SweepInterval time.Duration // MEDIA_SWEEP_INTERVAL: how often a worker tries to sweep
	PendingAge    time.Duration // MEDIA_PENDING_AGE: unfinished this long → checked for a live task
	OrphanAge     time.Duration // MEDIA_ORPHAN_AGE: an original with no row this old is deleted
	MetricsAddr   string        // WORKER_METRICS_ADDR: where `guidepost worker` serves /metrics
}

func loadMediaSettings(getenv func(string) string) (mediaSettings, error) {
	var errs []error
	dur := func(key string, def time.Duration) time.Duration {
		v := getenv(key)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("config: %s=%q: want a positive duration such as 5m", key, v))
		}
		return d
	}
	ms := mediaSettings{
		SweepInterval: dur("MEDIA_SWEEP_INTERVAL", time.Minute),
		PendingAge:    dur("MEDIA_PENDING_AGE", 5*time.Minute),
		OrphanAge:     dur("MEDIA_ORPHAN_AGE", 24*time.Hour),
		MetricsAddr:   getenv("WORKER_METRICS_ADDR"),
	}
	return ms, errors.Join(errs...)
}

// mediaService builds the feature on the app's pools. The API and the worker
// each build one; they share nothing in memory, only PostgreSQL, S3 and Redis.
func (a *app) mediaService(ms mediaSettings, obs media.Observer) *media.Service {
	return media.New(media.Deps{
		Store: gsql.NewMedia(a.db), Keys: gsql.NewIdempotencyKeys(a.db), Blobs: a.blobs,
		Queue: worker.NewQueue(a.redis), Clock: a.clock, Observer: obs, Renderer: childRenderer(),
	}, media.Config{
		MaxBytes: a.cfg.MaxUploadBytes, PublicBase: a.cfg.MediaPublicBase,
		PendingAge: ms.PendingAge, OrphanAge: ms.OrphanAge, RenderSlots: a.cfg.WorkerConcurrency,
	})
}

// childRenderer renders each photo in a child process of this binary, which
// the worker can kill and hold to a CPU and memory limit; in process only
// if the binary cannot find itself.
func childRenderer() media.Renderer {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return &worker.ChildRenderer{Command: []string{self, worker.RenderChildCommand}}
}

// wireMedia serves the media routes, and the queue gauges the load-test tool
// reads from the API's /metrics.
func (a *app) wireMedia(deps *api.Deps) (*media.Service, error) {
	ms, err := loadMediaSettings(os.Getenv)
	if err != nil {
		return nil, err
	}
	svc := a.mediaService(ms, nil)
	deps.Media = svc
	worker.RegisterQueueMetrics(a.registry, a.redis)
	return svc, nil
}

// runMediaWorker derives photos and sweeps until ctx ends.
func (a *app) runMediaWorker(ctx context.Context) error {
	ms, err := loadMediaSettings(os.Getenv)
	if err != nil {
		return err
	}
	metrics := worker.NewMetrics(a.registry)
	worker.RegisterQueueMetrics(a.registry, a.redis)
	svc := a.mediaService(ms, metrics)
	sweeper := &worker.Sweeper{Lock: gsql.NewMedia(a.db), Media: svc, Interval: ms.SweepInterval, Metrics: metrics, Log: a.log}
	w := worker.New(a.redis, worker.NewMux(svc, metrics), sweeper, worker.Config{
		Concurrency: a.cfg.WorkerConcurrency, ShutdownTimeout: a.cfg.ShutdownTimeout, Log: a.log,
	})
	if ms.MetricsAddr != "" {
		if err := a.serveWorkerMetrics(ctx, ms.MetricsAddr); err != nil {
			return err
		}
	}
	a.log.Info("photo worker", "concurrency", a.cfg.WorkerConcurrency, "heic_decoder", photo.HEICDecoder(),
		"sweep_interval", ms.SweepInterval, "pending_age", ms.PendingAge, "orphan_age", ms.OrphanAge)
	return w.Run(ctx)
}

// serveWorkerMetrics exposes /metrics from a worker process, which has no
// API server of its own. Listening first makes a taken port a start error.
func (a *app) serveWorkerMetrics(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("worker metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(a.registry, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	a.log.Info("worker metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return nil
}
