package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// The profiles are served on METRICS_ADDR beside /metrics and nowhere on
// HTTP_ADDR, whether /metrics is internal or public.
func TestPprofOnlyOnTheMetricsAddress(t *testing.T) {
	s3 := testkit.S3Config(t)
	for _, public := range []bool{false, true} {
		t.Run(fmt.Sprintf("public=%v", public), func(t *testing.T) {
			apiAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
			metricsAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
			env := map[string]string{
				"DATABASE_URL": testkit.DatabaseURL(t), "REDIS_URL": testkit.RedisURL(t, testkit.RedisDBCmd),
				"S3_ENDPOINT": s3.Endpoint, "S3_BUCKET": s3.Bucket, "S3_ACCESS_KEY": s3.AccessKey, "S3_SECRET_KEY": s3.SecretKey,
				"HTTP_ADDR": apiAddr, "METRICS_ADDR": metricsAddr, "GUIDEPOST_ENV": "development", "LOG_FORMAT": "json",
			}
			if public {
				env["METRICS_ADDR"] = "public"
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"serve"}, &testkit.SyncBuffer{}, func(k string) string { return env[k] })
			}()
			defer func() {
				cancel()
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					t.Error("serve did not stop")
				}
			}()
			waitOK(t, done, "http://"+apiAddr+"/readyz")
			paths := []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline", "/debug/pprof/profile?seconds=1"}
			if !public {
				for _, p := range paths {
					if code := statusOf(t, "http://"+metricsAddr+p); code != http.StatusOK {
						t.Errorf("GET %s on METRICS_ADDR: %d, want 200", p, code)
					}
				}
			}
			for _, p := range paths {
				if code := statusOf(t, "http://"+apiAddr+p); code != http.StatusNotFound {
					t.Errorf("GET %s on HTTP_ADDR: %d, want 404", p, code)
				}
			}
		})
	}
}

func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
