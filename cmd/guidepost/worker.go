package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"

	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/queue"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

// runWorker derives photos and sweeps until ctx ends, serving /metrics on
// WORKER_METRICS_ADDR when set; it returns once both have stopped.
func (a *app) runWorker(ctx context.Context) error {
	metrics := worker.NewMetrics(a.registry)
	queue.RegisterMetrics(a.registry, a.redis, a.logFor("queue_metrics"))
	svc := a.mediaService(metrics, nil, false)
	m := a.cfg.Media
	accounts := a.accountService(svc)
	sweeper := &worker.Sweeper{Lock: gsql.NewMedia(a.db), Media: svc, Accounts: accounts, Sessions: a.sessionSweeper(),
		Interval: m.SweepInterval, Metrics: metrics, Log: a.logFor("sweeper")}
	mux := worker.NewMux(svc, metrics)
	worker.HandlePurges(mux, svc.Purge, accounts.Purge, metrics)
	w := worker.New(a.redis, mux, sweeper, worker.Config{
		Concurrency: a.cfg.WorkerConcurrency, ShutdownTimeout: a.cfg.ShutdownTimeout, Log: a.logFor("worker"),
	})
	g, gctx := errgroup.WithContext(ctx)
	if addr := a.cfg.WorkerMetricsAddr; addr != "" {
		// Listening first makes a taken port a start error.
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("worker metrics: %w", err)
		}
		g.Go(func() error { return a.serveMetrics(gctx, ln, "worker metrics") })
	}
	a.log.Info("photo worker", "concurrency", a.cfg.WorkerConcurrency, "heic_decoder", photo.HEICDecoder(), "jpeg_codec", photo.JPEGCodec,
		"sweep_interval", m.SweepInterval, "pending_age", m.PendingAge, "orphan_age", m.OrphanAge, "upload_ttl", m.UploadTTL)
	g.Go(func() error { return w.Run(gctx) })
	return g.Wait()
}

// serveMetrics exposes the process's /metrics on an address of its own
// (a worker has no API server; an API may keep them off its public
// address) until ctx ends.
func (a *app) serveMetrics(ctx context.Context, ln net.Listener, what string) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(a.registry, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	a.log.Info(what, "url", "http://"+ln.Addr().String()+"/metrics")
	if err := serveUntil(ctx, srv, ln, srv.Close); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
