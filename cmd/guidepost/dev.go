package main

import (
	"context"
	"log/slog"

	"golang.org/x/sync/errgroup"

	"github.com/guidepost/guidepost/config"
)

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
