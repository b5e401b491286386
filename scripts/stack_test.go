// Package scripts has no Go code of its own: it exists so that `go test`
// (what `make test` and CI already run) also checks scripts/stack.sh, the
// shell script that brings up PostgreSQL+PostGIS, Redis and versitygw for
// local runs and tests. The test runs the script twice, as `make stack`,
// `make run` and `make test` do one after another, and checks that the second
// run succeeds without starting a second versitygw and that the bucket
// answers a signed request. It needs the real services, so it is skipped only
// with -short.
package scripts

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// emptySHA256 is the SHA-256 of an empty body; versitygw, like AWS, requires
// it in x-amz-content-sha256 on every signed request.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repo root %s has no go.mod: %v", root, err)
	}
	return root
}

func runStack(t *testing.T, ctx context.Context, root string, n int) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "scripts/stack.sh")
	cmd.Dir = root
	// Daemons started by the script must not keep our pipe open; if one
	// did, don't hang for ever.
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("run %d took %v:\n%s", n, time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("run %d of scripts/stack.sh: %v", n, err)
	}
	for _, comp := range []string{"postgres:", "redis:", "s3:", "chromium:"} {
		if !strings.Contains(string(out), comp) {
			t.Errorf("run %d printed no %q line", n, comp)
		}
	}
	return string(out)
}

// readPid returns the pid in the stack's versitygw pidfile, or 0 if absent.
func readPid(t *testing.T, pidfile string) int {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pidfile %s: %v", pidfile, err)
	}
	return pid
}

// countProcs counts live processes whose command name is comm and whose
// command line contains arg.
func countProcs(comm, arg string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	n := 0
	for _, d := range dirs {
		c, err := os.ReadFile(filepath.Join(d, "comm"))
		if err != nil || strings.TrimSpace(string(c)) != comm {
			continue
		}
		cl, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(cl), "\x00", " "), arg) {
			n++
		}
	}
	return n
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// s3Status sends a SigV4-signed request with an empty body (signed
// independently of the curl used by the script) and returns the status.
func s3Status(t *testing.T, method, endpoint, path string) int {
	t.Helper()
	region := envOr("S3_REGION", "us-east-1")
	access := envOr("S3_ACCESS_KEY", "guidepost")
	secret := envOr("S3_SECRET_KEY", "guidepost-secret")

	req, err := http.NewRequest(method, strings.TrimSuffix(endpoint, "/")+"/"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	amzDate, day := now.Format("20060102T150405Z"), now.Format("20060102")
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	const signed = "host;x-amz-content-sha256;x-amz-date"
	canonical := strings.Join([]string{
		method,
		req.URL.EscapedPath(),
		"", // query
		"host:" + req.URL.Host + "\nx-amz-content-sha256:" + emptySHA256 + "\nx-amz-date:" + amzDate + "\n",
		signed,
		emptySHA256,
	}, "\n")
	scope := day + "/" + region + "/s3/aws4_request"
	sum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := hmacSHA256([]byte("AWS4"+secret), day)
	for _, part := range []string{region, "s3", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
		access, scope, signed, hex.EncodeToString(hmacSHA256(key, toSign))))

	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, req.URL, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func psql(ctx context.Context, db string, sql ...string) (string, error) {
	args := []string{"-X", "-w", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1",
		"-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-d", db}
	for _, s := range sql {
		args = append(args, "-c", s)
	}
	out, err := exec.CommandContext(ctx, "psql", args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func TestStackIsIdempotent(t *testing.T) {
	if testing.Short() {
		t.Skip("brings up PostgreSQL, Redis and versitygw (may install them)")
	}
	root := repoRoot(t)
	stackDir := envOr("GUIDEPOST_STACK_DIR", filepath.Join(root, ".stack"))
	pidfile := filepath.Join(stackDir, "versitygw.pid")
	s3Data := filepath.Join(stackDir, "s3")
	endpoint := envOr("S3_ENDPOINT", "http://127.0.0.1:7070")
	bucket := envOr("S3_BUCKET", "guidepost")

	ctx := context.Background()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-5*time.Second))
		defer cancel()
	}

	out1 := runStack(t, ctx, root, 1)
	pid1 := readPid(t, pidfile)
	redis1 := countProcs("redis-server", ":6379")
	vgw1 := countProcs("versitygw", s3Data)

	runStack(t, ctx, root, 2)
	pid2 := readPid(t, pidfile)

	switch {
	case pid1 != 0:
		if pid2 != pid1 {
			t.Errorf("versitygw pidfile changed from %d to %d: the second run started another copy", pid1, pid2)
		}
		if c, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid2)); err != nil || strings.TrimSpace(string(c)) != "versitygw" {
			t.Errorf("pid %d from the pidfile is not a running versitygw (comm %q, %v)", pid2, c, err)
		}
	case strings.Contains(out1, "not started by this stack") || !strings.Contains(endpoint, "127.0.0.1"):
		// Something else already serves the endpoint; the stack must not
		// have started a copy of its own.
		if pid2 != 0 {
			t.Errorf("second run started versitygw pid %d although %s was already served", pid2, endpoint)
		}
	default:
		t.Fatalf("no versitygw pidfile at %s after the first run", pidfile)
	}
	if vgw2 := countProcs("versitygw", s3Data); vgw2 != vgw1 || vgw2 > 1 {
		t.Errorf("versitygw processes serving %s: %d after run 1, %d after run 2", s3Data, vgw1, vgw2)
	}
	if redis2 := countProcs("redis-server", ":6379"); redis2 != redis1 {
		t.Errorf("redis-server processes on :6379: %d after run 1, %d after run 2", redis1, redis2)
	}

	if got := s3Status(t, http.MethodHead, endpoint, bucket); got != http.StatusOK {
		t.Errorf("signed HEAD /%s = %d, want 200", bucket, got)
	}
	// A 404 (not 403) for a bucket that does not exist shows the check above
	// passed on the signature, not by accident.
	if got := s3Status(t, http.MethodHead, endpoint, "no-such-bucket-guidepost-stack-test"); got != http.StatusNotFound {
		t.Errorf("signed HEAD of a missing bucket = %d, want 404", got)
	}

	// Tests create their own database per package and add PostGIS to it.
	db := fmt.Sprintf("guidepost_stack_test_%d", os.Getpid())
	if out, err := psql(ctx, "postgres", "CREATE DATABASE "+db); err != nil {
		t.Fatalf("CREATE DATABASE %s: %v: %s", db, err, out)
	}
	t.Cleanup(func() {
		if out, err := psql(context.Background(), "postgres", "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
			t.Errorf("DROP DATABASE %s: %v: %s", db, err, out)
		}
	})
	out, err := psql(ctx, db, "CREATE EXTENSION postgis",
		"SELECT ST_DWithin('SRID=4326;POINT(2.35 48.85)'::geography, 'SRID=4326;POINT(2.36 48.85)'::geography, 1000)")
	if err != nil {
		t.Fatalf("CREATE EXTENSION postgis in a fresh database: %v: %s", err, out)
	}
	if out != "t" {
		t.Errorf("ST_DWithin of two points ~730 m apart within 1 km = %q, want t", out)
	}
}
