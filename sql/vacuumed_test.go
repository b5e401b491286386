package sql_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// onWarn is a log handler that calls do on the first warning it handles,
// before the caller goes on, and writes every record to out.
type onWarn struct {
	slog.Handler
	do     func()
	warned int
}

func (h *onWarn) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		if h.warned++; h.warned == 1 && h.do != nil {
			h.do()
		}
	}
	return h.Handler.Handle(ctx, r)
}

// A load's closing vacuum while another session of the database holds a
// snapshot older than the load sets no page all-visible: the seed names
// that session and vacuums again, succeeding once the session ends, and
// failing after its tries while it holds on.
func TestSeedVacuumsAgainPastAnOldSnapshot(t *testing.T) {
	ctx := context.Background()
	url := testkit.DatabaseURL(t)
	db, err := gsql.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	author := guideUser(t, db)
	for _, release := range []bool{true, false} {
		holder, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close(ctx)
		var pid int
		if err := holder.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		tx, err := holder.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SELECT count(*) FROM guides`); err != nil { // takes the snapshot
			t.Fatal(err)
		}
		stack(t, db, author, 200, 37.5, 127.0)
		if err := gsql.AnalyzeGuides(ctx, db); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		h := &onWarn{Handler: slog.NewTextHandler(&out, nil)}
		if release {
			h.do = func() {
				if err := tx.Commit(ctx); err != nil {
					t.Error(err)
				}
			}
		}
		err = gsql.EnsureGuidesVacuumed(ctx, db, slog.New(h), 3, 10*time.Millisecond)
		named := strings.Contains(out.String(), "pid "+strconv.Itoa(pid))
		switch {
		case release && (err != nil || h.warned != 1 || !named):
			t.Fatalf("a snapshot ended after the first warning: %v, %d warnings naming pid %d: %v\n%s", err, h.warned, pid, named, out.String())
		case !release && (err == nil || h.warned != 2 || !strings.Contains(err.Error(), "pid "+strconv.Itoa(pid))):
			t.Fatalf("a snapshot held through 3 tries: %v, %d warnings naming pid %d\n%s", err, h.warned, pid, out.String())
		}
		t.Logf("release %v: %v\n%s", release, err, out.String())
		tx.Rollback(ctx)
	}
	if err := gsql.EnsureGuidesVacuumed(ctx, db, slog.New(slog.DiscardHandler), 1, 0); err == nil {
		t.Fatal("the last load, vacuumed under a held snapshot, passes without a vacuum")
	}
	if _, err := db.Pool.Exec(ctx, `VACUUM guides, guide_tiles, guide_tile_tags`); err != nil {
		t.Fatal(err)
	}
	if err := gsql.EnsureGuidesVacuumed(ctx, db, slog.New(slog.DiscardHandler), 1, 0); err != nil {
		t.Fatalf("once no snapshot is held: %v", err)
	}
}
