package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/guidepost/guidepost/media/photo"
)

// runWorker derives photos and sweeps until ctx ends, serving /metrics on
// WORKER_METRICS_ADDR when set; it returns once both have stopped.
func (a *app) runWorker(ctx context.Context) error {
	w := a.wireWorker()
	m := a.cfg.Media
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

// serveMetrics exposes the process's /metrics and profiles on an address
// of its own (a worker has no API server; an API may keep them off its
// public address) until ctx ends. No write timeout: a CPU profile or trace
// streams for as long as its seconds parameter asks.
func (a *app) serveMetrics(ctx context.Context, ln net.Listener, what string) error {
	srv := &http.Server{Handler: a.metricsMux(), ReadHeaderTimeout: 5 * time.Second}
	a.log.Info(what, "url", "http://"+ln.Addr().String()+"/metrics")
	if err := serveUntil(ctx, srv, ln, srv.Close); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
