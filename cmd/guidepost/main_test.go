package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/internal/testkit"
	_ "golang.org/x/image/webp"
)

func TestBadConfigStopsTheStart(t *testing.T) {
	env := map[string]string{"GUIDES_CACHE": "maybe", "MEDIA_SWEEP_INTERVAL": "often"}
	err := run(context.Background(), []string{"serve"}, io.Discard, func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "GUIDES_CACHE") || !strings.Contains(err.Error(), "MEDIA_SWEEP_INTERVAL") {
		t.Fatalf("want both variables named, got %v", err)
	}
}

func TestLoggerAddsTheRequestIDOfTheContext(t *testing.T) {
	cfg, err := config.Parse(func(k string) string { return map[string]string{"LOG_FORMAT": "json"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := newLogger(cfg, &buf).With("service", "media")
	log.InfoContext(guidepost.WithRequestID(context.Background(), "abc123"), "hello")
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec["request_id"] != "abc123" || rec["service"] != "media" {
		t.Fatalf("line %s (%v)", buf.String(), err)
	}
}

// `dev` in-process: the API and a worker serving /metrics start, answer,
// and on cancel run returns only after both servers and the worker have
// stopped, so their ports are free again at once. Under -race this also
// catches any goroutine still writing after run returned.
func TestDevStartsAndStopsEverything(t *testing.T) {
	s3 := testkit.S3Config(t)
	apiAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	env := map[string]string{
		"DATABASE_URL": testkit.DatabaseURL(t), "REDIS_URL": testkit.RedisURL(t, testkit.RedisDBCmd),
		"S3_ENDPOINT": s3.Endpoint, "S3_BUCKET": s3.Bucket, "S3_ACCESS_KEY": s3.AccessKey, "S3_SECRET_KEY": s3.SecretKey,
		"HTTP_ADDR": apiAddr, "WORKER_METRICS_ADDR": metricsAddr, "WORKER_CONCURRENCY": "1", "METRICS_ADDR": "public",
		"LOG_FORMAT": "json", "SHUTDOWN_TIMEOUT": "5s",
	}
	logs := &testkit.SyncBuffer{}
	// Lines are held until run returns, so the ones checked below reach
	// the output only if run flushes them as it stops.
	every := logFlushEvery
	logFlushEvery = time.Hour
	defer func() { logFlushEvery = every }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"dev"}, logs, func(k string) string { return env[k] }) }()

	waitOK(t, done, "http://"+apiAddr+"/readyz")
	waitOK(t, done, "http://"+metricsAddr+"/metrics")
	req, _ := http.NewRequest("GET", "http://"+apiAddr+"/v1/nowhere", nil)
	req.Header.Set("X-Request-ID", "dev-test-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	cancel()
	var atReturn string // the lines logged until run returned: buffered ones too
	select {
	case err := <-done:
		atReturn = logs.String()
		if err != nil {
			t.Fatalf("dev: %v\n%s", err, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("dev did not stop:\n%s", logs)
	}
	for _, addr := range []string{apiAddr, metricsAddr} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("%s still taken after run returned: %v", addr, err)
			continue
		}
		ln.Close()
	}
	var sawRequest, sawStopped bool
	for _, line := range strings.Split(atReturn, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		sawRequest = sawRequest || rec["msg"] == "request" && rec["request_id"] == "dev-test-1" && rec["service"] == "api"
		sawStopped = sawStopped || rec["msg"] == "stopped"
	}
	if !sawRequest || !sawStopped {
		t.Errorf("when run returned: access line with the request id: %v, API stopped: %v\n%s", sawRequest, sawStopped, atReturn)
	}
}

// waitOK polls url until it answers 200, failing if run ends first.
func waitOK(t *testing.T, done <-chan error, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("dev ended before %s answered: %v", url, err)
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// `guidepost render` needs no configuration and writes every derivative in
// every format asked for, upright (orient-6.jpg displays 240×160).
func TestRenderWritesEveryDerivative(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	env := map[string]string{"MEDIA_FORMATS": "jpeg,webp"}
	if err := run(context.Background(), []string{"render", "-formats", "jpeg,webp,avif", "../../testdata/photos/orient-6.jpg", dir},
		&out, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"web", "thumb", "small", "marker"} {
		for _, ext := range []string{"jpg", "webp", "avif"} {
			data, err := os.ReadFile(filepath.Join(dir, kind+"."+ext))
			if err != nil || len(data) == 0 {
				t.Fatalf("%s.%s: %v", kind, ext, err)
			}
			if ext == "avif" {
				continue
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
			want := image.Pt(240, 160)
			if kind == "marker" {
				want = image.Pt(160, 160)
			}
			if err != nil || image.Pt(cfg.Width, cfg.Height) != want {
				t.Errorf("%s.%s: %d×%d (%v), want %v", kind, ext, cfg.Width, cfg.Height, err, want)
			}
		}
	}
	if err := run(context.Background(), []string{"render", "../../testdata/photos/doc.pdf", dir}, io.Discard,
		func(string) string { return "" }); err == nil {
		t.Error("a PDF rendered")
	}
}
