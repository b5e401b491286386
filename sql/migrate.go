package sql

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/guidepost/guidepost/migrations"
)

// Migrate applies every pending migration under a PostgreSQL advisory lock,
// so several processes starting together apply each migration once and the
// others wait, then find nothing to do.
func (db *DB) Migrate(ctx context.Context, log *slog.Logger) error {
	// Poll every second (the default is 5 s) so a waiting migrator starts soon
	// after the first finishes; give up after five minutes.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sqldb := stdlib.OpenDBFromPool(db.Pool)
	defer sqldb.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqldb, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, r := range results {
		log.Info("migration applied", "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
	}
	return nil
}
