package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/internal/testkit"
)

// When the shutdown grace runs out, serve still returns only after every
// handler has returned, so the pools it closes next are never closed under
// a running one. A lock held by another session keeps a nearby query
// running past the grace; the handler's access line must be logged before
// run returns.
func TestShutdownWaitsForHandlersPastTheGrace(t *testing.T) {
	s3 := testkit.S3Config(t)
	dbURL := testkit.DatabaseURL(t)
	apiAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	env := map[string]string{
		"DATABASE_URL": dbURL, "REDIS_URL": testkit.RedisURL(t, testkit.RedisDBCmd),
		"S3_ENDPOINT": s3.Endpoint, "S3_BUCKET": s3.Bucket, "S3_ACCESS_KEY": s3.AccessKey, "S3_SECRET_KEY": s3.SecretKey,
		"HTTP_ADDR": apiAddr, "METRICS_ADDR": metricsAddr, "GUIDEPOST_ENV": "development", "GUIDES_CACHE": "off",
		"LOG_FORMAT": "json", "SHUTDOWN_TIMEOUT": "200ms",
	}
	logs := &testkit.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, logs, func(k string) string { return env[k] }) }()
	waitOK(t, done, "http://"+apiAddr+"/readyz")
	waitOK(t, done, "http://"+metricsAddr+"/metrics")
	if resp, err := http.Get("http://" + apiAddr + "/metrics"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("/metrics on the public address with METRICS_ADDR set: %v %v", resp.StatusCode, err)
	}

	locker, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(context.Background())
	tx, err := locker.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(context.Background(), `LOCK TABLE guides IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		req, _ := http.NewRequest("GET", "http://"+apiAddr+"/v1/guides/nearby?lat=37.5&lng=127", nil)
		req.Header.Set("X-Request-ID", "straggler")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	watcher, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close(context.Background())
	waitFor(t, func() bool {
		var n int
		watcher.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%guides%'`).Scan(&n)
		return n > 0
	})

	cancel()
	var atReturn string
	select {
	case err := <-done:
		atReturn = logs.String()
		if err == nil || !strings.Contains(err.Error(), "shutdown") {
			t.Fatalf("serve past its grace: %v, want the shutdown's error\n%s", err, atReturn)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop:\n%s", logs)
	}
	wg.Wait()
	var returned bool
	for _, line := range strings.Split(atReturn, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		returned = returned || rec["msg"] == "request" && rec["request_id"] == "straggler"
	}
	if !returned {
		t.Fatalf("run returned before the handler did\n%s", atReturn)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
	}
}
