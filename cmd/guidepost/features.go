package main

import (
	"context"
	"log/slog"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/config"
	gsql "github.com/guidepost/guidepost/sql"
)

// wireAPI builds the feature services the API serves. The returned stop
// function ends whatever background work they started.
func (a *app) wireAPI(ctx context.Context, deps *api.Deps) (stop func(), err error) {
	tokens := auth.NewTokens(a.cfg.JWTSecret, a.cfg.TokenTTL, a.clock)
	deps.Auth = auth.NewService(gsql.NewUsers(a.db), tokens, a.clock)
	mediaSvc, err := a.wireMedia(deps)
	if err != nil {
		return nil, err
	}
	stopGuides, err := a.wireGuides(ctx, deps, mediaSvc)
	if err != nil {
		return nil, err
	}
	return stopGuides, nil
}

// runWorker processes background tasks until ctx ends.
func (a *app) runWorker(ctx context.Context) error {
	return a.runMediaWorker(ctx)
}

func work(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	a, err := open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.runWorker(ctx)
}

func openDBOnly(ctx context.Context, cfg config.Config) (*gsql.DB, error) {
	return gsql.Open(ctx, cfg.DatabaseURL)
}

func seed(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout interface{ Write([]byte) (int, error) }) error {
	return runSeed(ctx, cfg, log, args, stdout)
}
