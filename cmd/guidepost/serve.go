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

func migrate(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	db, err := openDBOnly(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Migrate(ctx, log)
}

// dev runs migrations, the API and a worker in one process: one command for
// local use, nothing the production split would not also do.
func dev(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	if err := cfg.CheckServe(); err != nil {
		return err
	}
	if err := migrate(ctx, cfg, log); err != nil {
		return err
	}
	a, err := open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return a.runAPI(gctx) })
	g.Go(func() error { return a.runWorker(gctx) })
	return g.Wait()
}

// runAPI serves until ctx ends, then drains: /readyz turns 503, the listener
// closes, and in-flight requests get cfg.ShutdownTimeout to finish.
func (a *app) runAPI(ctx context.Context) error {
	deps := api.Deps{Log: a.log, Registry: a.registry, Checks: a.checks(), Clock: a.clock,
		MaxInflight: a.cfg.MaxInflight, QueueWait: a.cfg.QueueWait}
	stop, err := a.wireAPI(ctx, &deps)
	if err != nil {
		return err
	}
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
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	a.log.Info("listening", "url", "http://"+ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("http: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down", "grace", a.cfg.ShutdownTimeout, "drain_delay", a.cfg.DrainDelay)
	srv.Drain()
	// Behind a load balancer, keep accepting while /readyz reports 503, so
	// the balancer stops sending before the listener closes.
	time.Sleep(a.cfg.DrainDelay)
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		hs.Close() // cut the stragglers before the pools they use are closed
		return fmt.Errorf("http: shutdown: %w", err)
	}
	a.log.Info("stopped")
	return nil
}
