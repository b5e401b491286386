package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
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
