package testkit

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Binary builds cmd/guidepost once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "guidepost-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "guidepost")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/guidepost")
		cmd.Dir = RepoRoot(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// RepoRoot is the folder holding go.mod.
func RepoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Process is a running guidepost subcommand with its output captured.
type Process struct {
	Cmd    *exec.Cmd
	URL    string // http://HTTP_ADDR when it serves HTTP
	output *SyncBuffer
	done   chan struct{}
}

// Start runs the binary with args and env (added to a minimal environment)
// and stops it at the end of the test. When addr is set it waits for /healthz.
func Start(t testing.TB, env []string, addr string, args ...string) *Process {
	t.Helper()
	return StartBinary(t, Binary(t), env, addr, args...)
}

// StartBinary is Start with another build of guidepost (an earlier
// release, to compare answers with).
func StartBinary(t testing.TB, bin string, env []string, addr string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	dieWithTest(cmd)
	// Tests scrape /metrics from the API's address, and several API
	// processes run at once: one internal default port would collide.
	cmd.Env = append(append(os.Environ(), "METRICS_ADDR=public"), env...)
	if addr != "" {
		cmd.Env = append(cmd.Env, "HTTP_ADDR="+addr)
	}
	p := &Process{Cmd: cmd, output: &SyncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.output, p.output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() {
			t.Logf("output of %v:\n%s", args, p.Output())
		}
	})
	if addr != "" {
		p.URL = "http://" + addr
		waitFor(t, "guidepost "+args[0], 30*time.Second, func() error {
			select {
			case <-p.done:
				t.Fatalf("guidepost %v exited early:\n%s", args, p.Output())
			default:
			}
			resp, err := http.Get(p.URL + "/healthz")
			if err != nil {
				return err
			}
			resp.Body.Close()
			return nil
		})
	}
	return p
}

// Signal sends sig unless the process has exited.
func (p *Process) Signal(sig os.Signal) {
	select {
	case <-p.done:
	default:
		p.Cmd.Process.Signal(sig)
	}
}

// Wait waits for exit up to limit and reports whether it exited.
func (p *Process) Wait(limit time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(limit):
		return false
	}
}

// Exited is closed when the process ends.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Output is everything the process printed so far.
func (p *Process) Output() string { return p.output.String() }

// SyncBuffer is a bytes.Buffer that goroutines may write while a test reads
// it: a process's output, a logger's lines.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
