package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// serverProc is a guidepost process this tool started; only it is ever
// signalled, by its own pid.
type serverProc struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
}

// startServer runs `bin mode` listening on addr, output to logPath, with
// env added to this process's environment.
func startServer(bin, mode, addr, logPath string, env ...string) (*serverProc, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("server binary %s: %w (build it: go build -o bin/guidepost ./cmd/guidepost)", bin, err)
	}
	logf, err := openLog(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, mode)
	cmd.Env = append(serverEnv(addr), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s %s: %w", bin, mode, err)
	}
	p := &serverProc{cmd: cmd, log: logf, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// serverEnv is the environment of a guidepost process this tool starts.
func serverEnv(addr string) []string {
	// Virtual users sign in once and never refresh: their access tokens
	// must outlive the run, not the 15-minute default.
	env := append(os.Environ(), "TOKEN_TTL=24h")
	if os.Getenv("METRICS_ADDR") == "" {
		// The tool scrapes /metrics from the API's address.
		env = append(env, "METRICS_ADDR=public")
	}
	if addr != "" {
		env = append(env, "HTTP_ADDR="+addr)
	}
	if os.Getenv("GUIDEPOST_ENV") == "" && os.Getenv("JWT_SECRET") == "" {
		// A server started here is local: it may run on the development
		// secret, which it refuses unless told so.
		env = append(env, "GUIDEPOST_ENV=development")
	}
	return env
}

func openLog(path string) (*os.File, error) {
	if path == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.Create(path)
}

// stop asks the server to shut down (SIGTERM), and kills it after grace.
func (p *serverProc) stop(grace time.Duration) {
	if p == nil {
		return
	}
	defer p.log.Close()
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// waitReady polls /readyz every `every` until 200, the process exits or
// timeout passes; it returns how long readiness took.
func waitReady(ctx context.Context, base string, p *serverProc, timeout, every time.Duration) (time.Duration, error) {
	start := time.Now()
	hc := &http.Client{Timeout: time.Second}
	defer hc.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		if readyOnce(ctx, hc, base) {
			return time.Since(start), nil
		}
		if p != nil {
			select {
			case <-p.done:
				return 0, fmt.Errorf("server exited before it was ready: %v (see its log)", p.err)
			default:
			}
		}
		if !sleepCtx(ctx, every) {
			return 0, fmt.Errorf("%s/readyz not ready after %s", base, timeout)
		}
	}
}

func readyOnce(ctx context.Context, hc *http.Client, base string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// ensureServer makes sure the target answers /readyz. With -start-server
// always (or auto when nothing answers) it migrates and starts `<bin>
// serve` at the target's address and `<bin> worker` beside it, and
// returns them (nil when it started nothing).
func ensureServer(ctx context.Context, cfg *Config, base string) (*fleet, error) {
	quick := cfg.StartServer == "auto"
	if cfg.StartServer == "never" || quick {
		cfg.Log.Info("waiting for the target", "url", base+"/readyz")
		_, err := waitReady(ctx, base, nil, pick(quick, 2*time.Second, cfg.ReadyTimeout), 100*time.Millisecond)
		if err == nil || cfg.StartServer == "never" {
			return nil, err
		}
	}
	if cfg.StartServer == "always" {
		// Another server answering there (one a crashed run left behind)
		// would be measured instead of the one started below.
		if _, err := waitReady(ctx, base, nil, time.Second, 100*time.Millisecond); err == nil {
			return nil, fmt.Errorf("a server already answers at %s: stop it, or use -start-server never", base)
		}
	}
	return startFleet(ctx, cfg, base)
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

func hostPort(base string) (string, error) {
	u, err := checkTarget(base, true)
	if err != nil {
		return "", err
	}
	if u.Port() != "" {
		return u.Host, nil
	}
	return net.JoinHostPort(u.Hostname(), pick(u.Scheme == "https", "443", "80")), nil
}

// freeLoopbackAddr asks the kernel for a free port on 127.0.0.1.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func serverLogPath(cfg *Config, mode string) string {
	if cfg.NoWrite {
		return ""
	}
	return filepath.Join(cfg.Out, "server-logs", time.Now().Format("20060102-150405")+"-"+mode+".log")
}
