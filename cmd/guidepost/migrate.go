package main

import (
	"context"
	"log/slog"

	"github.com/guidepost/guidepost/config"
	gsql "github.com/guidepost/guidepost/sql"
)

func migrate(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	db, err := gsql.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Migrate(ctx, log)
}
