// Package sql implements the feature packages' stores on PostgreSQL+PostGIS
// through pgx. Public store methods own their transaction; private helpers
// take the pgx.Tx they run in. Files are named for the table or concern
// they store: likes_groupcommit.go is how the likes store writes many
// likes in one commit, sessions_batchcheck.go how the sessions store
// checks many sessions in one query, and replicas*.go how reads are
// routed to streaming replicas.
package sql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// DB is the primary's connection pool that every store shares, and the
// replicas that reads may go to (see replicas.go).
type DB struct {
	Pool  *pgxpool.Pool
	reads *replicas // nil: every read on the primary
}

// Config tunes a pool beyond what DATABASE_URL says. The zero Config is
// what migrations and bulk loads use; DefaultConfig is the serving pools'.
type Config struct {
	// StatementTimeout cancels any statement running longer, on the server,
	// so one unlucky query cannot hold a connection (0: no limit, for
	// migrations and bulk loads). It answers "unavailable", never a 500.
	StatementTimeout time.Duration
	// Replicas are streaming replicas of the primary for map, guide and
	// photo reads; none: the primary serves everything.
	Replicas ReplicaConfig
}

// DefaultConfig is the serving pools' configuration with every default:
// the numbers config.Parse starts from.
func DefaultConfig() Config {
	return Config{StatementTimeout: 5 * time.Second,
		Replicas: ReplicaConfig{MaxLag: 5 * time.Second, Wait: 50 * time.Millisecond, Every: 200 * time.Millisecond}}
}

// Open connects and pings, so a wrong URL or a stopped server fails at start
// with one line naming PostgreSQL rather than at the first request.
func Open(ctx context.Context, url string) (*DB, error) { return OpenWith(ctx, url, Config{}) }

// OpenWith is Open with options; the pools that serve requests use it.
// DATABASE_URL may list several hosts with target_session_attrs=read-write:
// pgx then connects to whichever is the primary, so a failover is followed
// by new connections without a restart.
func OpenWith(ctx context.Context, url string, opts Config) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad DATABASE_URL: %w", err)
	}
	configure := func(cfg *pgxpool.Config) { configurePool(cfg, opts) }
	configure(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: cannot reach %s:%d: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	db := &DB{Pool: pool}
	if len(opts.Replicas.URLs) > 0 {
		if db.reads, err = openReplicas(ctx, pool, opts.Replicas, configure); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return db, nil
}

// configurePool applies what every pool of the process shares, primary and
// replicas alike.
func configurePool(cfg *pgxpool.Config, opts Config) {
	if opts.StatementTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	}
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	// JIT compiles any query whose estimated cost is high, which for the
	// KNN and viewport queries cost far more than it saved (100 vs 5,800
	// tps in pgbench). Every query here is OLTP-sized.
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	// Read every timestamptz as UTC, so a time prints the same whether it came
	// from PostgreSQL or from a cache, whatever TZ the process runs under.
	cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
		conn.TypeMap().RegisterType(&pgtype.Type{
			Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC},
		})
		return nil
	}
	if !strings.Contains(cfg.ConnString(), "pool_max_conns") {
		// pgx defaults to max(4, CPUs): on 2 cores four connections, which the
		// field report saw pinned at 100% busy. Requests here are I/O-bound.
		cfg.MaxConns = 16
	}
}

// Close stops the replicas' health loop and releases every connection.
func (db *DB) Close() {
	if db.reads != nil {
		db.reads.close()
	}
	db.Pool.Close()
}

// Ping reports whether PostgreSQL answers; readiness uses it.
func (db *DB) Ping(ctx context.Context) error { return db.Pool.Ping(ctx) }

// InTx runs fn in a transaction, committing when it returns nil.
// A database that cannot be reached is "unavailable" whatever step failed
// (begin, a statement, commit), so callers need not translate each one.
func (db *DB) InTx(ctx context.Context, fn func(pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, db.Pool, fn)
	switch {
	case err == nil || guidepost.ErrorCode(err) != guidepost.EINTERNAL:
	case isTimeout(err):
		return errTooSlow(err)
	case isConnError(err):
		return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the database is unavailable; try again shortly")
	}
	if err == nil {
		db.noteWrite(ctx)
	}
	return err
}

// Register exports pool statistics; pgxpool has no metrics of its own.
func (db *DB) Register(reg prometheus.Registerer) {
	gauge := func(name, help string, f func(*pgxpool.Stat) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "guidepost_db_pool_" + name, Help: help},
			func() float64 { return f(db.Pool.Stat()) })
	}
	counter := func(name, help string, f func(*pgxpool.Stat) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "guidepost_db_pool_" + name, Help: help},
			func() float64 { return f(db.Pool.Stat()) })
	}
	reg.MustRegister(
		gauge("acquired_conns", "Connections in use.", func(s *pgxpool.Stat) float64 { return float64(s.AcquiredConns()) }),
		gauge("idle_conns", "Idle connections.", func(s *pgxpool.Stat) float64 { return float64(s.IdleConns()) }),
		gauge("total_conns", "Open connections.", func(s *pgxpool.Stat) float64 { return float64(s.TotalConns()) }),
		gauge("max_conns", "Pool size limit.", func(s *pgxpool.Stat) float64 { return float64(s.MaxConns()) }),
		counter("acquires_total", "Connections acquired.", func(s *pgxpool.Stat) float64 { return float64(s.AcquireCount()) }),
		counter("empty_acquires_total", "Acquires that had to wait for a connection.", func(s *pgxpool.Stat) float64 { return float64(s.EmptyAcquireCount()) }),
		counter("acquire_wait_seconds_total", "Time spent waiting for a connection.", func(s *pgxpool.Stat) float64 { return s.AcquireDuration().Seconds() }),
	)
}

// translate turns driver errors into the application vocabulary, so that no
// SQL text reaches a client and callers can branch on codes.
func translate(err error, what string) error {
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return guidepost.Errorf(guidepost.ENOTFOUND, "%s not found", what)
	case errors.Is(err, context.Canceled):
		return err
	case isTimeout(err):
		return errTooSlow(err)
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		return guidepost.Wrap(guidepost.ECONFLICT, err, what+" already exists")
	case errors.As(err, &pgErr) && (pgErr.Code == "22021" || pgErr.Code == "22P05" || pgErr.Code == "22P02"):
		// A value PostgreSQL cannot store (a byte sequence that is not
		// UTF-8, NUL, a malformed literal): the services check every field
		// first, so this is a net, not a validation.
		return guidepost.Wrap(guidepost.EINVALID, err, "a value in the request cannot be stored")
	case isConnError(err):
		return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the database is unavailable; try again shortly")
	default:
		return err
	}
}

// isTimeout reports a statement stopped by statement_timeout (SQLSTATE
// 57014, query_canceled) or by the request's deadline.
func isTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &pgErr) && pgErr.Code == "57014"
}

// errTooSlow is a query that ran out of time: the client may retry, so it
// is "unavailable" (503 with Retry-After), never a 500.
func errTooSlow(err error) error {
	return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the database took too long to answer; try again shortly")
}

// isConnError reports failures to reach the server at all, which callers
// should see as "unavailable" (retry) rather than as a bug.
func isConnError(err error) bool {
	var connErr *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connErr) || errors.As(err, &netErr) {
		return true
	}
	// A pooled connection whose server went away (crash, failover) reads
	// EOF mid-query: the database is unavailable, not the code broken.
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 is connection exceptions; 57P01-03 the server shutting down.
		return pgErr.Code[:2] == "08" || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	return pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
