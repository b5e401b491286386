package sql_test

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// TestLikeCounterDesigns measures a storm of likes on one guide with the
// count kept on one row (UPDATE guides SET like_count = like_count + 1 in
// the liking statement) against the sharded counters the store uses. It
// is a measurement, not a check: run it with GUIDEPOST_LIKE_BENCH=1
// (GUIDEPOST_LIKE_BENCH_USERS, _CONNS and _ROUNDS to vary it).
func TestLikeCounterDesigns(t *testing.T) {
	if os.Getenv("GUIDEPOST_LIKE_BENCH") == "" {
		t.Skip("a measurement: set GUIDEPOST_LIKE_BENCH=1")
	}
	env := func(k string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return n
		}
		return def
	}
	users, conns, rounds := env("GUIDEPOST_LIKE_BENCH_USERS", 500), env("GUIDEPOST_LIKE_BENCH_CONNS", 64), env("GUIDEPOST_LIKE_BENCH_ROUNDS", 3)
	ctx := context.Background()
	db, err := gsql.Open(ctx, testkit.DatabaseURL(t)+"&pool_max_conns="+strconv.Itoa(conns))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := gsql.NewGuides(db)
	author := guideUser(t, db)
	ids := make([]string, users)
	for i := range ids {
		ids[i] = guideUser(t, db)
	}
	oneRow := func(guide, user string) error {
		_, err := db.Pool.Exec(ctx, `WITH ins AS (
				INSERT INTO guide_likes (guide_id, user_id, created_at) VALUES ($1, $2, now())
				ON CONFLICT DO NOTHING RETURNING guide_id
			)
			UPDATE guides SET like_count = like_count + 1 WHERE id IN (SELECT guide_id FROM ins)`, guide, user)
		return err
	}
	sharded := func(guide, user string) error {
		_, err := store.Like(ctx, guide, guides.Liker{UserID: user}, time.Now())
		return err
	}
	// The tile trigger fires on UPDATE guides too; the one-row design pays
	// for it, so measure it without to be fair to it.
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE guides DISABLE TRIGGER guides_tiles_update`); err != nil {
		t.Fatal(err)
	}
	for round := range rounds {
		for _, design := range []struct {
			name string
			like func(guide, user string) error
		}{{"one counter row", oneRow}, {"16 sharded rows", sharded}} {
			guide := guideRow(t, store, author, 37.5, 127.0)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for _, u := range ids {
				wg.Go(func() {
					<-start
					if err := design.like(guide, u); err != nil {
						t.Error(err)
					}
				})
			}
			t0 := time.Now()
			close(start)
			wg.Wait()
			took := time.Since(t0)
			if n := countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, guide); n != users {
				t.Fatalf("%s: %d likes", design.name, n)
			}
			t.Logf("round %d, %s: %d concurrent likes on one guide over %d connections in %s: %.0f likes/s",
				round+1, design.name, users, conns, took.Round(time.Millisecond), float64(users)/took.Seconds())
		}
	}
}
