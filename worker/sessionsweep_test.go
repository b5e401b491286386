package worker_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

type nothingToSweep struct{}

func (nothingToSweep) Sweep(context.Context) (media.SweepReport, error) {
	return media.SweepReport{}, nil
}

// The worker's periodic sweep runs the session sweep too: a session
// logged out is gone after one sweep.
func TestSweeperRunsTheSessionSweep(t *testing.T) {
	db := testkit.DB(t)
	users := gsql.NewUsers(db)
	clock := guidepost.SystemClock{}
	svc := auth.New(auth.Deps{Store: users, Tokens: auth.NewTokens(strings.Repeat("k", 32), time.Hour, clock), Clock: clock}, auth.Config{Sessions: auth.DefaultConfig().Sessions})
	ctx := context.Background()
	s, err := svc.Guest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := svc.Authenticate(ctx, s.AccessToken)
	if err := svc.Logout(ctx, c); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	sweeper := worker.NewSweeper(worker.SweeperDeps{Lock: gsql.NewMedia(db), Media: nothingToSweep{},
		Sessions: auth.NewSweeper(auth.SweeperDeps{Store: users, Clock: clock}, auth.SweeperConfig{UsedRetention: time.Minute}),
		Metrics:  worker.NewMetrics(reg), Log: slog.New(slog.DiscardHandler)}, worker.SweeperConfig{Interval: time.Minute})
	sweeper.Once(ctx)
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d sessions after a sweep (%v), want the logged-out one gone", n, err)
	}
	if n := counterValue(t, reg, "guidepost_session_sweep_deleted_total", "sessions"); n != 1 {
		t.Fatalf("guidepost_session_sweep_deleted_total{kind=sessions} = %v, want 1", n)
	}
}
