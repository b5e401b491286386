package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// startReplica copies the primary on primaryPort (pg_basebackup -R -X
// stream) into dir and starts it as a streaming replica on port.
func startReplica(ctx context.Context, dir string, port, primaryPort int) (*postgres, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	os.Chmod(dir, 0o777)
	pg := &postgres{dir: dir, port: port,
		url: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/guidepost?sslmode=disable", port)}
	if err := asPostgres(ctx, filepath.Join(pgBin, "pg_basebackup"), "-h", "127.0.0.1", "-p", strconv.Itoa(primaryPort),
		"-U", "postgres", "-D", pg.data(), "-R", "-X", "stream", "-c", "fast", "--no-sync"); err != nil {
		return nil, err
	}
	return pg, pg.start(ctx)
}

// exec runs statements on the cluster's guidepost database.
func (pg *postgres) exec(ctx context.Context, stmts ...string) error {
	c, err := pgx.Connect(ctx, pg.url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// The replica drills need the fleet's replica (fleetConfig.Replica).
func needReplica(f *fleet) error {
	if f.replica == nil {
		return fmt.Errorf("the fleet has no replica (the failover drill promoted it?)")
	}
	return nil
}

// killReplica stops the replica at once, as a crash does, and starts it
// again 10 s later: reads move to the primary and come back.
func killReplica(ctx context.Context, f *fleet) error {
	if err := needReplica(f); err != nil {
		return err
	}
	if err := f.replica.stop(ctx); err != nil {
		return err
	}
	if err := pause(ctx, 10*time.Second); err != nil {
		return err
	}
	return f.replica.start(ctx)
}

// delayReplica makes the replica replay 5 s late for 15 s: at the edge of
// DATABASE_REPLICA_MAX_LAG, it serves only reads whose writes it has
// replayed, and leaves the rotation when it passes the limit.
func delayReplica(ctx context.Context, f *fleet) error {
	if err := needReplica(f); err != nil {
		return err
	}
	set := func(d string) error {
		return f.replica.exec(ctx, "ALTER SYSTEM SET recovery_min_apply_delay = '"+d+"'", "SELECT pg_reload_conf()")
	}
	if err := set("5s"); err != nil {
		return err
	}
	if err := pause(ctx, 15*time.Second); err != nil {
		return err
	}
	return set("0")
}

// failPrimary kills the primary and promotes the replica, as an operator,
// Patroni or a managed service does; the API processes follow through the
// two hosts in DATABASE_URL. Replication is made synchronous first, and
// the replica caught up, so that no acknowledged write can be lost (what
// a managed failover promises; an asynchronous one may lose the last
// moments). The promoted replica is the fleet's primary afterwards, with
// no replica.
func failPrimary(ctx context.Context, f *fleet) error {
	if err := needReplica(f); err != nil {
		return err
	}
	if err := f.pg.exec(ctx, `ALTER SYSTEM SET synchronous_standby_names = '*'`, `SELECT pg_reload_conf()`); err != nil {
		return err
	}
	if err := waitFor(ctx, "the replica synchronous", 30*time.Second, func() error {
		var ok bool
		err := queryPrimary(ctx, f.pg, `SELECT coalesce(bool_and(sync_state = 'sync' AND flush_lsn >= pg_current_wal_lsn()), false) FROM pg_stat_replication`, &ok)
		if err == nil && !ok {
			err = fmt.Errorf("not yet")
		}
		return err
	}); err != nil {
		return err
	}
	if err := f.pg.stop(ctx); err != nil {
		return err
	}
	start := time.Now()
	if err := asPostgres(ctx, filepath.Join(pgBin, "pg_ctl"), "-D", f.replica.data(), "-w", "promote"); err != nil {
		return err
	}
	f.log.Info("replica promoted", "after", time.Since(start).Round(10*time.Millisecond))
	f.pg, f.replica = f.replica, nil
	return nil
}

func queryPrimary(ctx context.Context, pg *postgres, q string, dest any) error {
	c, err := pgx.Connect(ctx, pg.url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return c.QueryRow(ctx, q).Scan(dest)
}

func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
