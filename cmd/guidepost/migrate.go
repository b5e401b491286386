package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

// migrate applies the SQL migrations, then moves objects stored under an
// older key layout. Both steps are safe to run twice, from several
// processes at once, and while servers run.
func migrate(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	db, err := gsql.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx, log); err != nil {
		return err
	}
	return migrateObjects(ctx, cfg, log)
}

// migrateObjects moves originals to their own prefix (see
// media.MoveOriginals).
func migrateObjects(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	blobs, err := openBlobs(ctx, cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	moved, err := media.MoveOriginals(ctx, blobs)
	if err != nil {
		return fmt.Errorf("moving originals to their own prefix: %w", err)
	}
	log.Info("objects migrated", "originals_moved", moved, "took", time.Since(start).Round(time.Millisecond))
	return nil
}
