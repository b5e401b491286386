package sql_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

func TestMigrateAppliesOnceThenIsANoOp(t *testing.T) {
	ctx := context.Background()
	db, err := gsql.Open(ctx, testkit.EmptyDatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("first migrate: %v", err)
	}
	var applied int
	count := `SELECT count(*) FROM goose_db_version WHERE version_id > 0`
	if err := db.Pool.QueryRow(ctx, count).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied == 0 {
		t.Fatal("no migration recorded")
	}
	if err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	var again int
	db.Pool.QueryRow(ctx, count).Scan(&again)
	if again != applied {
		t.Fatalf("second run applied more: %d then %d", applied, again)
	}
	for _, table := range []string{"users", "media", "guides", "guide_media", "guide_likes"} {
		var ok bool
		db.Pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&ok)
		if !ok {
			t.Errorf("table %s missing", table)
		}
	}
	var gist bool
	db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE tablename = 'guides' AND indexdef ILIKE '%USING gist (location)%')`).Scan(&gist)
	if !gist {
		t.Error("guides.location has no GiST index")
	}
}
