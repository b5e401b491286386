package api_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// A request whose database work outlives the request's deadline answers
// 503 with Retry-After, not a 500 and not a hung connection: here a lock
// held by another session stalls the account lookup of GET /v1/me.
func TestRequestDeadlineAnswersUnavailable(t *testing.T) {
	db := testkit.DB(t)
	clock := guidepost.SystemClock{}
	svc := auth.New(auth.Deps{Store: gsql.NewUsers(db), Tokens: auth.NewTokens(strings.Repeat("k", 32), time.Hour, clock), Clock: clock}, auth.Config{Sessions: auth.DefaultConfig().Sessions})
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), Auth: svc},
		api.Config{RequestTimeout: 300 * time.Millisecond})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	h := &harness{t: t, srv: srv}
	token := h.do("POST", "/v1/auth/guest", "", "{}").body["access_token"].(string)

	ctx := context.Background()
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE users IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := h.do("GET", "/v1/me", token, "")
	problem(t, r, 503)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("answered after %v", took)
	}
}
