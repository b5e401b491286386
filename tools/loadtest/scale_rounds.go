package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// ScaleRound is one size in one round of -scale-rounds: warm map reads on
// a fresh server with its cache, then on one with GUIDES_CACHE=off, each
// beside what PostgreSQL itself spent on the statements it was asked.
// Rounds visit the sizes in turn, the order reversed every other round,
// so that two sizes of one round are measured minutes apart and drift in
// the machine falls on both: the sizes' ratio is taken within a round.
type ScaleRound struct {
	Round int       `json:"round"`
	Label string    `json:"label"`
	On    RoundStep `json:"cache_on"`
	Off   RoundStep `json:"cache_off"`
	// Cold (-scale-rounds-cold) is the mix on a fresh server with Redis
	// emptied, recorded the moment it answers, after the size's warm
	// steps, as the sizes' rows' cold figures are: nearly every read
	// reaches the database.
	Cold   *RoundStep `json:"cold,omitempty"`
	Errors []string   `json:"errors,omitempty"`
}

// RoundStep is one measured nearby mix (nearby and viewport reads).
type RoundStep struct {
	Nearby   float64 `json:"nearby_p95_ms"`
	Viewport float64 `json:"viewport_p95_ms"`
	Requests int     `json:"requests"`
	// From pg_stat_statements, reset before the step: the calls and
	// execution time of every statement of the size's database. PGCalls
	// is -1 where the extension is not loaded.
	PGCalls  int64   `json:"pg_calls"`
	PGExecMs float64 `json:"pg_exec_ms"`
}

// PGPerRequest is PostgreSQL's execution time for one request of the
// step, in ms: the work no server in front of the database can avoid
// when it asks the same statements (with the cache off, every read asks).
func (s RoundStep) PGPerRequest() float64 {
	if s.PGCalls < 0 || s.Requests == 0 {
		return 0
	}
	return s.PGExecMs / float64(s.Requests)
}

// scaleRounds runs base.Scale.Rounds rounds over the sizes, appending to
// rep and saving it after every size.
func scaleRounds(ctx context.Context, base Config, rep *ScaleReport, save func() error) []error {
	var errs []error
	for r := 1; r <= base.Scale.Rounds; r++ {
		for _, db := range roundOrder(base.Scale.DBs, r) {
			base.Log.Info("scale: round", "round", r, "size", db.Label)
			rr := scaleRoundOne(ctx, base, db, r)
			for _, e := range rr.Errors {
				errs = append(errs, fmt.Errorf("round %d %s: %s", r, db.Label, e))
			}
			rep.Rounds = append(rep.Rounds, rr)
			rep.LoadAvg = loadAvg()
			if err := save(); err != nil {
				return append(errs, err)
			}
		}
	}
	return errs
}

// roundOrder is the sizes as given in odd rounds, reversed in even ones:
// over two rounds each size is measured as often early as late.
func roundOrder(dbs []scaleDB, round int) []scaleDB {
	out := slices.Clone(dbs)
	if round%2 == 0 {
		slices.Reverse(out)
	}
	return out
}

// scaleRoundOne measures one size: cache on after the -scale-warm
// warm-up, then cache off after a shorter one (the database's buffers are
// warm by then; the new server's pool is not).
func scaleRoundOne(ctx context.Context, base Config, db scaleDB, round int) ScaleRound {
	rr := ScaleRound{Round: round, Label: db.Label}
	c, err := scaleConfigFor(base, db)
	if err != nil {
		rr.Errors = append(rr.Errors, "address: "+err.Error())
		return rr
	}
	name := fmt.Sprintf("%s-r%d", db.Label, round)
	if rr.On, err = roundStep(ctx, c, db.URL, name+"-on", c.Scale.Warm); err != nil {
		rr.Errors = append(rr.Errors, "cache on: "+err.Error())
	}
	if rr.Off, err = roundStep(ctx, c, db.URL, name+"-off", min(c.Scale.Warm, 15*time.Second), "GUIDES_CACHE=off"); err != nil {
		rr.Errors = append(rr.Errors, "cache off: "+err.Error())
	}
	// Cold last, as the rows measure it after the same size's warm steps:
	// PostgreSQL's buffers then hold this size's pages, not the other's.
	if c.Scale.RoundsCold {
		cold, err := coldRoundStep(ctx, c, db.URL, name+"-cold")
		if err != nil {
			rr.Errors = append(rr.Errors, "cold: "+err.Error())
		}
		rr.Cold = &cold
	}
	return rr
}

// roundStep starts a server (with env), warms it unrecorded, then records
// the nearby mix and PostgreSQL's statements over the same seconds.
func roundStep(ctx context.Context, c Config, dbURL, name string, warm time.Duration, env ...string) (RoundStep, error) {
	procs, err := scaleReady(ctx, &c, "scale-round-"+name, name, warm, env...)
	if err != nil {
		return RoundStep{PGCalls: -1}, err
	}
	defer procs.stop()
	return measureRoundStep(ctx, c, dbURL, name)
}

// coldRoundStep is scaleCold's nearby step in a round: a fresh server,
// Redis emptied, nothing asked of it before the clock. The fixture's
// users sign up on a server of their own first, as scaleCold's did on
// the warm one: on the measured server the sign-ups would warm it, and
// their statements would count in its PostgreSQL time.
func coldRoundStep(ctx context.Context, c Config, dbURL, name string) (RoundStep, error) {
	procs, err := scaleReady(ctx, &c, "scale-round-"+name+"-fixture", name, 0)
	if err != nil {
		return RoundStep{PGCalls: -1}, err
	}
	procs.stop()
	if procs, err = scaleServer(ctx, &c, "scale-round-"+name); err != nil {
		return RoundStep{PGCalls: -1}, err
	}
	defer procs.stop()
	c.procs = procs
	return measureRoundStep(ctx, c, dbURL, name)
}

// measureRoundStep records the nearby mix against c's server beside
// PostgreSQL's statements over the same seconds.
func measureRoundStep(ctx context.Context, c Config, dbURL, name string) (RoundStep, error) {
	out := RoundStep{PGCalls: -1}
	pgErr := pgStatementsReset(ctx, dbURL)
	if pgErr != nil {
		c.Log.Warn("scale: no PostgreSQL figures", "err", pgErr)
	}
	s, err := scaleStep(ctx, c, "nearby", name, nil)
	if err != nil {
		return out, err
	}
	out.Nearby, out.Viewport, out.Requests = s.Kinds["nearby"].Latency.P95, s.Kinds["bbox"].Latency.P95, s.Totals.Requests
	if pgErr == nil {
		out.PGCalls, out.PGExecMs, err = pgStatements(ctx, dbURL)
		if err != nil {
			out.PGCalls = -1
			c.Log.Warn("scale: pg_stat_statements", "err", err)
		}
	}
	return out, nil
}

// pgStatementsReset empties pg_stat_statements, creating the extension in
// the database when the server preloads it (a benchmark's database).
func pgStatementsReset(ctx context.Context, dbURL string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err = conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err == nil {
		_, err = conn.Exec(ctx, "SELECT pg_stat_statements_reset()")
	}
	if err != nil {
		return fmt.Errorf("pg_stat_statements (needs shared_preload_libraries = 'pg_stat_statements'): %w", err)
	}
	return nil
}

// pgStatements sums the calls and execution time of the database's own
// statements since the reset, leaving out the tool's own reads of the
// view.
func pgStatements(ctx context.Context, dbURL string) (calls int64, ms float64, err error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::int8, coalesce(sum(total_exec_time), 0)::float8
		FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND query NOT LIKE '%pg_stat_statements%'`).Scan(&calls, &ms)
	return calls, ms, err
}
