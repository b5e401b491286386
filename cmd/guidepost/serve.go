package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/config"
)

// runAPI serves until ctx ends, then drains: /readyz turns 503, the listener
// closes, event streams end (their clients resume elsewhere), and in-flight
// requests get cfg.ShutdownTimeout to finish. Past
// it their contexts are cancelled and their connections closed, and runAPI
// still waits for every handler to return, so the pools the caller closes
// next are never closed under a running handler. /metrics is served on
// METRICS_ADDR, an internal address, unless it says public: then beside
// the API.
func (a *app) runAPI(ctx context.Context) error {
	deps, cfg, stop, err := a.wireAPI(ctx)
	if err != nil {
		return err
	}
	defer stop()
	srv := api.New(deps, cfg)
	base, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	// The whole pool opens and readies before the first request, not with
	// it: on 2 cores, a cold half paid its first reads in a restart's first
	// second (see sql.Warm).
	if err := a.db.Warm(ctx, int(a.db.Pool.Config().MaxConns)); err != nil {
		return err
	}
	// Listen before logging "listening", so a taken port is a startup error.
	ln, err := net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	if addr := a.cfg.MetricsAddr; addr != config.MetricsPublic {
		mln, err := net.Listen("tcp", addr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("metrics: %w (METRICS_ADDR: give each API process a free address, or public to serve /metrics on HTTP_ADDR)", err)
		}
		g.Go(func() error { return a.serveMetrics(gctx, mln, "metrics") })
	}
	a.log.Info("listening", "url", "http://"+ln.Addr().String())
	g.Go(func() error {
		err := serveUntil(gctx, hs, ln, func() error {
			a.log.Info("shutting down", "grace", a.cfg.ShutdownTimeout, "drain_delay", a.cfg.DrainDelay)
			srv.Drain()
			// Behind a load balancer, keep accepting while /readyz reports 503, so
			// the balancer stops sending before the listener closes.
			time.Sleep(a.cfg.DrainDelay)
			sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
			defer cancel()
			srv.EndStreams() // a stream is never idle: Shutdown would wait the whole grace for it
			err := hs.Shutdown(sctx)
			if err != nil {
				cancelRequests() // the stragglers' queries and calls end now
				hs.Close()
				err = fmt.Errorf("shutdown: %w", err)
			}
			if n, _ := srv.WaitHandlers(context.Background()); n > 0 {
				a.log.Warn("waited for handlers past the grace", "handlers", n)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("http: %w", err)
		}
		a.log.Info("stopped")
		return nil
	})
	return g.Wait()
}

// serveUntil serves hs on ln until ctx ends, then calls shutdown and waits
// for Serve to return, so nothing Serve started outlives the call. An error
// from Serve before ctx ends is returned at once.
func serveUntil(ctx context.Context, hs *http.Server, ln net.Listener, shutdown func() error) error {
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	err := shutdown()
	if serr := <-served; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	return err
}
