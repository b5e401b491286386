package testkit

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// Shared S3 server started by scripts/stack.sh; keys match its defaults.
const (
	S3AccessKey = "guidepost"
	S3SecretKey = "guidepost-secret"
)

func s3Endpoint() string {
	if e := os.Getenv("TEST_S3_ENDPOINT"); e != "" {
		return e
	}
	return "http://127.0.0.1:7070"
}

// S3Config returns a fresh bucket on the shared server for this test.
func S3Config(t testing.TB) objstore.Config {
	t.Helper()
	cfg := objstore.Config{
		Endpoint: s3Endpoint(), Region: "us-east-1", AccessKey: S3AccessKey, SecretKey: S3SecretKey,
		Bucket: fmt.Sprintf("gp-test-%d-%d", os.Getpid(), time.Now().UnixNano()%1e12),
	}
	if err := objstore.New(cfg).CreateBucket(context.Background()); err != nil {
		t.Fatalf("testkit: s3: %v (run `make stack`)", err)
	}
	t.Cleanup(func() { emptyBucket(cfg) })
	return cfg
}

// emptyBucket deletes what a test left; the bucket itself is left empty.
func emptyBucket(cfg objstore.Config) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := objstore.New(cfg)
	b.List(ctx, "", func(o media.Object) error { return b.Delete(ctx, o.Key) })
}

// VersitygwPath finds the S3 server binary that scripts/stack.sh installed.
func VersitygwPath() string {
	if p := os.Getenv("GUIDEPOST_VERSITYGW"); p != "" {
		return p
	}
	tools := os.Getenv("GUIDEPOST_TOOLS")
	if tools == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				home = "/root" // as scripts/stack.sh assumes when HOME is unset
			}
			cache = filepath.Join(home, ".cache")
		}
		tools = filepath.Join(cache, "guidepost", "tools")
	}
	return filepath.Join(tools, "versitygw-v1.8.0", "versitygw")
}

// S3Server is a private versitygw for fault tests.
type S3Server struct {
	Config objstore.Config
	dir    string
	cmd    *exec.Cmd
	t      testing.TB
}

// StartS3 starts a private S3 server on a spare port with one bucket.
func StartS3(t testing.TB) *S3Server {
	t.Helper()
	port := FreePort(t)
	s := &S3Server{t: t, dir: t.TempDir(), Config: objstore.Config{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), Region: "us-east-1",
		AccessKey: S3AccessKey, SecretKey: S3SecretKey, Bucket: "fault-test",
	}}
	s.Start()
	t.Cleanup(s.Stop)
	if err := objstore.New(s.Config).CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// Start (re)starts the server on the same port and data folder.
func (s *S3Server) Start() {
	s.t.Helper()
	addr := s.Config.Endpoint[len("http://"):]
	s.cmd = exec.Command(VersitygwPath(), "--port", addr, "--quiet", "posix", "--sidecar", filepath.Join(s.dir, "meta"), filepath.Join(s.dir, "data"))
	os.MkdirAll(filepath.Join(s.dir, "meta"), 0o755)
	os.MkdirAll(filepath.Join(s.dir, "data"), 0o755)
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+S3AccessKey, "ROOT_SECRET_ACCESS_KEY="+S3SecretKey)
	dieWithTest(s.cmd)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("testkit: versitygw: %v (run `make stack` to install it)", err)
	}
	waitFor(s.t, "versitygw", 20*time.Second, func() error {
		resp, err := http.Get(s.Config.Endpoint)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
}

// Stop kills the server; idempotent.
func (s *S3Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}
