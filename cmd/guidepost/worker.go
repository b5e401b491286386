package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"

	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/media/photo"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

func work(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	a, err := open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.runWorker(ctx)
}

// runWorker derives photos and sweeps until ctx ends, serving /metrics on
// WORKER_METRICS_ADDR when set; it returns once both have stopped.
func (a *app) runWorker(ctx context.Context) error {
	metrics := worker.NewMetrics(a.registry)
	worker.RegisterQueueMetrics(a.registry, a.redis, a.logFor("queue_metrics"))
	svc := a.mediaService(metrics)
	m := a.cfg.Media
	sweeper := &worker.Sweeper{Lock: gsql.NewMedia(a.db), Media: svc, Interval: m.SweepInterval, Metrics: metrics, Log: a.logFor("sweeper")}
	w := worker.New(a.redis, worker.NewMux(svc, metrics), sweeper, worker.Config{
		Concurrency: a.cfg.WorkerConcurrency, ShutdownTimeout: a.cfg.ShutdownTimeout, Log: a.logFor("worker"),
	})
	g, gctx := errgroup.WithContext(ctx)
	if addr := a.cfg.WorkerMetricsAddr; addr != "" {
		// Listening first makes a taken port a start error.
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("worker metrics: %w", err)
		}
		g.Go(func() error { return a.serveWorkerMetrics(gctx, ln) })
	}
	a.log.Info("photo worker", "concurrency", a.cfg.WorkerConcurrency, "heic_decoder", photo.HEICDecoder(), "jpeg_codec", photo.JPEGCodec,
		"sweep_interval", m.SweepInterval, "pending_age", m.PendingAge, "orphan_age", m.OrphanAge)
	g.Go(func() error { return w.Run(gctx) })
	return g.Wait()
}

// serveWorkerMetrics exposes /metrics from a worker process, which has no
// API server of its own, until ctx ends.
func (a *app) serveWorkerMetrics(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(a.registry, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	a.log.Info("worker metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	if err := serveUntil(ctx, srv, ln, srv.Close); err != nil {
		return fmt.Errorf("worker metrics: %w", err)
	}
	return nil
}
