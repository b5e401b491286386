package api_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/objstore"
)

// Readiness gates on PostgreSQL alone: with Redis down the API still
// answers, so /readyz is 200 "degraded" naming Redis, and the gauge per
// dependency says which one is down. PostgreSQL down is 503.
func TestReadinessGatesOnPostgresOnly(t *testing.T) {
	db := testkit.DB(t)
	dead := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	deadRedis := redis.NewClient(&redis.Options{Addr: dead})
	t.Cleanup(func() { deadRedis.Close() })
	s3 := objstore.New(testkit.S3Config(t))
	redisCheck := api.Check{Name: "redis", Ping: func(ctx context.Context) error { return deadRedis.Ping(ctx).Err() }, Optional: true}
	s3Check := api.Check{Name: "s3", Ping: s3.Ping, Optional: true}

	reg := prometheus.NewRegistry()
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: reg,
		Checks: []api.Check{{Name: "postgres", Ping: db.Ping}, redisCheck, s3Check}}, api.Config{})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	h := &harness{t: t, srv: srv}
	r := h.do("GET", "/readyz", "", "")
	checks, _ := r.body["checks"].(map[string]any)
	if r.status != 200 || r.body["status"] != "degraded" || checks["redis"] != "unavailable" || checks["postgres"] != "ok" || checks["s3"] != "ok" {
		t.Fatalf("Redis down: %d %v", r.status, r.body)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	up := map[string]float64{}
	for _, f := range fams {
		if f.GetName() == "guidepost_dependency_up" {
			for _, m := range f.GetMetric() {
				up[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	if fmt.Sprint(up) != "map[postgres:1 redis:0 s3:1]" {
		t.Fatalf("guidepost_dependency_up: %v", up)
	}

	deadPG, err := pgxpool.New(context.Background(), "postgres://postgres@"+dead+"/x?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(deadPG.Close)
	s = api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(),
		Checks: []api.Check{{Name: "postgres", Ping: deadPG.Ping}, redisCheck, s3Check}}, api.Config{})
	srv2 := httptest.NewServer(s.Handler())
	t.Cleanup(srv2.Close)
	r = (&harness{t: t, srv: srv2}).do("GET", "/readyz", "", "")
	if r.status != 503 || r.body["status"] != "unavailable" {
		t.Fatalf("PostgreSQL down: %d %v", r.status, r.body)
	}
}

// /readyz answers from one check at most a second old: however many calls
// arrive at once or one after another, PostgreSQL and S3 are asked once a
// second (an S3 HeadBucket is billed), and a dependency that goes down
// still turns it unready at the next second.
func TestReadinessSharesOneCheckASecond(t *testing.T) {
	db := testkit.DB(t)
	s3 := objstore.New(testkit.S3Config(t))
	var pgPings, s3Pings atomic.Int64
	var pgDown atomic.Bool
	pg := api.Check{Name: "postgres", Ping: func(ctx context.Context) error {
		pgPings.Add(1)
		if pgDown.Load() {
			return errors.New("down")
		}
		return db.Ping(ctx)
	}}
	s3Check := api.Check{Name: "s3", Optional: true, Ping: func(ctx context.Context) error {
		s3Pings.Add(1)
		return s3.Ping(ctx)
	}}
	c := &clock{}
	c.now.Store(time.Now().UnixNano())
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(),
		Checks: []api.Check{pg, s3Check}, Clock: c}, api.Config{})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	h := &harness{t: t, srv: srv}

	var wg sync.WaitGroup
	statuses := make([]int, 100)
	for i := range statuses {
		wg.Go(func() {
			resp, err := http.Get(srv.URL + "/readyz")
			if err != nil {
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		})
	}
	wg.Wait()
	for i, st := range statuses {
		if st != 200 {
			t.Fatalf("call %d: %d", i, st)
		}
	}
	for range 100 {
		if r := h.do("GET", "/readyz", "", ""); r.status != 200 || r.body["status"] != "ready" {
			t.Fatalf("%d %v", r.status, r.body)
		}
	}
	if pgPings.Load() != 1 || s3Pings.Load() != 1 {
		t.Fatalf("200 calls within a second: %d PostgreSQL pings, %d HeadBuckets; want 1 each", pgPings.Load(), s3Pings.Load())
	}
	pgDown.Store(true)
	c.now.Add(int64(time.Second))
	if r := h.do("GET", "/readyz", "", ""); r.status != 503 || r.body["status"] != "unavailable" {
		t.Fatalf("a second after PostgreSQL went down: %d %v", r.status, r.body)
	}
	if s3Pings.Load() != 2 {
		t.Fatalf("%d HeadBuckets after a second, want 2", s3Pings.Load())
	}
}

// /healthz and /readyz answer as their schemas say, ready or not: a probe
// written against the document reads the same names.
func TestHealthAnswersAsDocumented(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	db := testkit.DB(t)
	down := api.Check{Name: "redis", Ping: func(context.Context) error { return errors.New("down") }, Optional: true}
	for name, checks := range map[string][]api.Check{
		"ready":    {{Name: "postgres", Ping: db.Ping}},
		"degraded": {{Name: "postgres", Ping: db.Ping}, down},
		"down":     {{Name: "postgres", Ping: down.Ping}},
	} {
		s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), Checks: checks}, api.Config{})
		srv := httptest.NewServer(s.Handler())
		c := &contract{t: t, srv: srv, doc: doc}
		if a := c.call("GET", "/readyz", "", nil); a.status != 200 && name != "down" || a.status != 503 && name == "down" {
			t.Errorf("%s: /readyz %d", name, a.status)
		}
		c.call("GET", "/healthz", "", nil)
		srv.Close()
	}
}
