package testkit

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	gsql "github.com/guidepost/guidepost/sql"
)

// PGPair is a private primary and a streaming replica of it (pg_basebackup
// -R -X stream), on spare ports, with the schema migrated: what a managed
// PostgreSQL's read replica is, on this machine. Neither touches 5432.
type PGPair struct {
	Primary, Replica *PGServer
}

// PairOptions shape the pair.
type PairOptions struct {
	// ApplyDelay is the replica's recovery_min_apply_delay: a replica that
	// lags on purpose (0: replays as soon as WAL arrives).
	ApplyDelay time.Duration
	// Sync makes the primary wait for the replica to flush each commit
	// (synchronous_standby_names), so that a promotion loses no
	// acknowledged write even after a crash of the primary.
	Sync bool
}

// StartPGPair starts the pair and waits until the replica streams.
func StartPGPair(t testing.TB, opt PairOptions) *PGPair {
	t.Helper()
	began := time.Now()
	primary := StartPostgres(t)
	t.Logf("testkit: primary started in %s", time.Since(began).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := gsql.Open(ctx, primary.URL)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Migrate(ctx, slog.New(slog.DiscardHandler))
	db.Close()
	if err != nil {
		t.Fatalf("testkit: migrate the primary: %v", err)
	}
	replica := newPGServer(t, "guidepost-pg-replica-")
	replica.asPostgres(filepath.Join(pgBin, "pg_basebackup"), "-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port),
		"-U", "postgres", "-D", replica.data(), "-R", "-X", "stream", "-c", "fast", "--no-sync")
	if opt.ApplyDelay > 0 {
		replica.extra = " -c recovery_min_apply_delay=" + strconv.FormatInt(opt.ApplyDelay.Milliseconds(), 10) + "ms"
	}
	t.Logf("testkit: primary migrated and copied in %s", time.Since(began).Round(time.Millisecond))
	replica.Start()
	p := &PGPair{Primary: primary, Replica: replica}
	if opt.Sync {
		primary.Exec(`ALTER SYSTEM SET synchronous_standby_names = '*'`, `SELECT pg_reload_conf()`)
	}
	waitFor(t, "the replica's stream", time.Minute, func() error {
		var n int
		err := p.query(primary.URL, `SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'`, &n)
		if err == nil && n == 0 {
			err = fmt.Errorf("no streaming replica yet")
		}
		return err
	})
	return p
}

// Promote makes the replica a primary (pg_ctl promote), as an operator,
// Patroni or a managed service does on failover, and waits until it takes
// writes.
func (p *PGPair) Promote() {
	p.Replica.t.Helper()
	p.Replica.asPostgres(filepath.Join(pgBin, "pg_ctl"), "-D", p.Replica.data(), "-w", "promote")
	waitFor(p.Replica.t, "the promoted replica", time.Minute, func() error {
		var standby bool
		err := p.query(p.Replica.URL, `SELECT pg_is_in_recovery()`, &standby)
		if err == nil && standby {
			err = fmt.Errorf("still in recovery")
		}
		return err
	})
}

// CaughtUp waits until the replica has replayed everything the primary
// has written so far.
func (p *PGPair) CaughtUp(limit time.Duration) {
	p.Replica.t.Helper()
	var lsn string
	if err := p.query(p.Primary.URL, `SELECT pg_current_wal_insert_lsn()::text`, &lsn); err != nil {
		p.Replica.t.Fatal(err)
	}
	waitFor(p.Replica.t, "the replica's replay", limit, func() error {
		var ok bool
		err := p.query(p.Replica.URL, `SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)`, &ok, lsn)
		if err == nil && !ok {
			err = fmt.Errorf("behind %s", lsn)
		}
		return err
	})
}

func (p *PGPair) query(url, q string, dest any, args ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return c.QueryRow(ctx, q, args...).Scan(dest)
}

// Exec runs statements on the server's guidepost database, failing the
// test on an error.
func (s *PGServer) Exec(stmts ...string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, stmt := range stmts {
		if _, err := c.Exec(ctx, stmt); err != nil {
			s.t.Fatalf("testkit: %s: %v", stmt, err)
		}
	}
}
