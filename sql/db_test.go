package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// Times come back in UTC (pgx would give time.Local), so the same row prints
// the same from the database and from a cache.
func TestTimestampsScanAsUTC(t *testing.T) {
	db := testkit.DB(t)
	var got time.Time
	if err := db.Pool.QueryRow(context.Background(), `SELECT '2026-01-02 03:04:05+09'::timestamptz`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got.Location() != time.UTC || got.Hour() != 18 || got.Day() != 1 {
		t.Fatalf("got %v", got)
	}
}

// A statement that outlives statement_timeout, or the request's deadline,
// is "unavailable" (503 + Retry-After at the API), never an internal error.
// A lock held by another session makes an ordinary lookup wait.
func TestSlowStatementsAreUnavailable(t *testing.T) {
	ctx := context.Background()
	url := testkit.DatabaseURL(t)
	db, err := gsql.OpenWith(ctx, url, gsql.Config{StatementTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var setting string
	if err := db.Pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&setting); err != nil || setting != "200ms" {
		t.Fatalf("statement_timeout = %q, %v", setting, err)
	}
	locker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE users IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	users := gsql.NewUsers(db)
	_, err = users.UserByEmail(ctx, "a@example.com")
	if code := guidepost.ErrorCode(err); code != guidepost.EUNAVAILABLE {
		t.Fatalf("statement_timeout: code %q (%v), want unavailable", code, err)
	}
	unbounded, err := gsql.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer unbounded.Close()
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = gsql.NewUsers(unbounded).UserByEmail(dctx, "a@example.com")
	if code := guidepost.ErrorCode(err); code != guidepost.EUNAVAILABLE {
		t.Fatalf("deadline: code %q (%v), want unavailable", code, err)
	}
	err = unbounded.InTx(dctx, func(tx pgx.Tx) error { return nil })
	if code := guidepost.ErrorCode(err); code != guidepost.EUNAVAILABLE {
		t.Fatalf("deadline in a transaction: code %q (%v), want unavailable", code, err)
	}
}

// Warm leaves that many connections open and idle, each past its first
// PostGIS query.
func TestWarmOpensConnections(t *testing.T) {
	db := testkit.DB(t)
	if err := db.Warm(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if st := db.Pool.Stat(); st.IdleConns() < 4 || st.AcquiredConns() != 0 {
		t.Fatalf("idle %d, acquired %d after Warm(4): want ≥ 4 idle, none held", st.IdleConns(), st.AcquiredConns())
	}
}
