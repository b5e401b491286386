package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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

// Warm readies each connection it opens for the map's reads: PROJ set up
// by a geography distance, and the nearby statement prepared and planned
// at a guide's place, so no first request after a restart pays for them.
func TestWarmReadiesEachConnection(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	guideRow(t, gsql.NewGuides(db), guideUser(t, db), 37.5665, 126.978)
	if err := db.Warm(ctx, 4); err != nil {
		t.Fatal(err)
	}
	assertWarmed(t, db.Pool, 4)
}

// assertWarmed fails t unless pool has n connections, each with PROJ set
// up and the nearby statement prepared.
func assertWarmed(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	ctx := context.Background()
	if got := pool.Stat().TotalConns(); got != int32(n) {
		t.Fatalf("%d connections after Warm(%d), want %d", got, n, n)
	}
	for i := range n {
		c, err := pool.Acquire(ctx) // each held, so the next is another
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		var proj, prepared bool
		err = c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_backend_memory_contexts WHERE name = 'Proj Context'),
			EXISTS (SELECT 1 FROM pg_prepared_statements WHERE statement = $1)`, gsql.NearbySQL).Scan(&proj, &prepared)
		if err != nil {
			t.Fatal(err)
		}
		if !proj || !prepared {
			t.Errorf("connection %d: PROJ set up %v, nearby statement prepared %v; want both", i, proj, prepared)
		}
	}
}

// A connection held elsewhere when Warm runs (in dev, the worker's sweep
// holds one while it waits for a second) is left cold: Warm neither waits
// for it nor fails, and warms the rest.
func TestWarmLeavesAHeldConnectionCold(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db, err := gsql.Open(ctx, testkit.DatabaseURL(t)+"&pool_max_conns=3")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	held, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if err := db.Warm(ctx, 3); err != nil {
		t.Fatalf("Warm(3) with one of three held: %v", err)
	}
	if st := db.Pool.Stat(); st.TotalConns() != 3 || st.AcquiredConns() != 1 {
		t.Fatalf("%d connections, %d acquired after Warm: want 3, the held one", st.TotalConns(), st.AcquiredConns())
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
