package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/internal/testkit"
)

// stackEnv points a guidepost process at fresh, isolated resources.
func stackEnv(t *testing.T, redisDB int) []string {
	return stackEnvWith(t, testkit.RedisURL(t, redisDB))
}

// stackEnvWith is stackEnv with a Redis of the caller's (one of the
// test's own, so that no rate limit is shared with another test).
func stackEnvWith(t *testing.T, redisURL string) []string {
	s3 := testkit.S3Config(t)
	return []string{
		"DATABASE_URL=" + testkit.DatabaseURL(t),
		"REDIS_URL=" + redisURL,
		"S3_ENDPOINT=" + s3.Endpoint, "S3_BUCKET=" + s3.Bucket,
		"S3_ACCESS_KEY=" + s3.AccessKey, "S3_SECRET_KEY=" + s3.SecretKey,
		"LOG_FORMAT=json", "JWT_SECRET=" + e2eJWTSecret,
	}
}

// e2eJWTSecret is the servers' secret, so tests can sign tokens as they do.
const e2eJWTSecret = "guidepost-e2e-secret-of-at-least-32-bytes"

func freeAddr(t *testing.T) string { return fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t)) }

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeIsReadyAndExportsMetrics(t *testing.T) {
	p := testkit.Start(t, stackEnv(t, testkit.RedisDBE2E), freeAddr(t), "serve")
	status, body := get(t, p.URL+"/readyz")
	if status != 200 {
		t.Fatalf("readyz %d: %s", status, body)
	}
	for _, dep := range []string{`"postgres":"ok"`, `"redis":"ok"`, `"s3":"ok"`} {
		if !strings.Contains(body, dep) {
			t.Errorf("readyz does not report %s: %s", dep, body)
		}
	}
	get(t, p.URL+"/v1/nowhere")
	_, metrics := get(t, p.URL+"/metrics")
	for _, name := range []string{
		`guidepost_http_request_duration_seconds_bucket{method="GET",route="/readyz",status="200"`,
		`guidepost_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}`,
		"guidepost_db_pool_acquired_conns", "go_goroutines", "process_cpu_seconds_total",
	} {
		if !strings.Contains(metrics, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

// A request in flight when SIGTERM arrives still gets its answer: the body
// of a sign-up is trickled over two seconds, SIGTERM lands in the middle.
func TestSIGTERMFinishesInFlightRequests(t *testing.T) {
	p := testkit.Start(t, stackEnv(t, testkit.RedisDBE2E), freeAddr(t), "serve")
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", p.URL+"/v1/auth/signup", pr)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("slow request failed: %v", err)
		}
		done <- resp
	}()
	body := `{"email":"slow@example.com","password":"12345678","display_name":"Slow"}`
	pw.Write([]byte(body[:10]))
	time.Sleep(300 * time.Millisecond)
	p.Signal(syscall.SIGTERM)
	time.Sleep(700 * time.Millisecond)
	// New connections are refused while the old one is served.
	if _, err := http.Get(p.URL + "/healthz"); err == nil {
		t.Error("a new connection was accepted after SIGTERM")
	}
	pw.Write([]byte(body[10:]))
	pw.Close()
	resp := <-done
	if resp == nil || resp.StatusCode != 201 {
		t.Fatalf("in-flight request: %v", resp)
	}
	resp.Body.Close()
	if !p.Wait(10 * time.Second) {
		t.Fatal("server did not exit after draining")
	}
	if code := p.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, p.Output())
	}
}

// Two migrators racing on an empty database both succeed: the advisory lock
// makes one wait, then find nothing to do.
func TestConcurrentMigrateBothSucceed(t *testing.T) {
	bin := testkit.Binary(t)
	url := testkit.EmptyDatabaseURL(t)
	env := append(stackEnv(t, testkit.RedisDBE2E), "DATABASE_URL="+url) // the last DATABASE_URL wins
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			cmd := exec.Command(bin, "migrate")
			cmd.Env = append(cmd.Environ(), env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%v: %s", err, out)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// A dependency that is down at start is one line naming it, not a hang.
func TestUnreachableDependencyIsOneClearLine(t *testing.T) {
	bin := testkit.Binary(t)
	dead := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	base := stackEnv(t, testkit.RedisDBE2E)
	cases := map[string]string{
		"DATABASE_URL=postgres://postgres@" + dead + "/guidepost?sslmode=disable": "postgres:",
		"REDIS_URL=redis://" + dead + "/0":                                        "redis:",
		"S3_ENDPOINT=http://" + dead:                                              "s3:",
	}
	for override, want := range cases {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(append(cmd.Environ(), base...), override, "HTTP_ADDR="+freeAddr(t))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("%s: serve started", override)
		}
		last := lastLine(string(out))
		if !strings.HasPrefix(last, "guidepost: "+want) || strings.Contains(string(out), "panic") {
			t.Errorf("%s: last line %q", override, last)
		}
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("%s: took %s to fail", override, took)
		}
	}
}

// serve and worker refuse to start without a secret of their own unless
// GUIDEPOST_ENV=development says this is a local run.
func TestOnlyDevelopmentRunsOnTheBuiltInSecret(t *testing.T) {
	for _, cmdName := range []string{"serve", "worker"} {
		for _, env := range [][]string{{"GUIDEPOST_ENV=", "JWT_SECRET="}, {"GUIDEPOST_ENV=production", "JWT_SECRET="},
			{"GUIDEPOST_ENV=", "JWT_SECRET=" + config.DevJWTSecret}} {
			cmd := exec.Command(testkit.Binary(t), cmdName)
			cmd.Env = append(append(cmd.Environ(), env...), "HTTP_ADDR="+freeAddr(t))
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(lastLine(string(out)), "JWT_SECRET") {
				t.Fatalf("%s %v: want a refusal naming JWT_SECRET, got %v: %s", cmdName, env, err, out)
			}
		}
	}
}

func lastLine(s string) string {
	var last string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			last = sc.Text()
		}
	}
	return last
}
