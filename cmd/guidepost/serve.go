package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/config"
)

func serve(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	if err := cfg.CheckServe(); err != nil {
		return err
	}
	a, err := open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.runAPI(ctx)
}

// runAPI serves until ctx ends, then drains: /readyz turns 503, the listener
// closes, and in-flight requests get cfg.ShutdownTimeout to finish.
func (a *app) runAPI(ctx context.Context) error {
	deps := api.Deps{Log: a.logFor("api"), Registry: a.registry, Checks: a.checks(), Clock: a.clock,
		MaxInflight: a.cfg.MaxInflight, QueueWait: a.cfg.QueueWait, RequestTimeout: a.cfg.RequestTimeout}
	stop := a.wireAPI(ctx, &deps)
	defer stop()
	srv := api.New(deps)
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	// Listen before logging "listening", so a taken port is a startup error.
	ln, err := net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	a.log.Info("listening", "url", "http://"+ln.Addr().String())
	err = serveUntil(ctx, hs, ln, func() error {
		a.log.Info("shutting down", "grace", a.cfg.ShutdownTimeout, "drain_delay", a.cfg.DrainDelay)
		srv.Drain()
		// Behind a load balancer, keep accepting while /readyz reports 503, so
		// the balancer stops sending before the listener closes.
		time.Sleep(a.cfg.DrainDelay)
		sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			hs.Close() // cut the stragglers before the pools they use are closed
			return fmt.Errorf("shutdown: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	a.log.Info("stopped")
	return nil
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
