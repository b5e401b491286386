package e2e

import (
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// /metrics is served on METRICS_ADDR, never on the public address unless
// METRICS_ADDR=public asks for it (as testkit.Start does).
func TestMetricsStayOffThePublicAddress(t *testing.T) {
	metricsAddr := freeAddr(t)
	p := testkit.Start(t, append(stackEnv(t, testkit.RedisDBE2E), "METRICS_ADDR="+metricsAddr), freeAddr(t), "serve")
	if status, body := get(t, p.URL+"/metrics"); status != 404 {
		t.Fatalf("/metrics on the public address: %d %.200s", status, body)
	}
	if status, body := get(t, "http://"+metricsAddr+"/metrics"); status != 200 || !strings.Contains(body, "guidepost_http_inflight") {
		t.Fatalf("/metrics on METRICS_ADDR: %d %.200s", status, body)
	}
	public := testkit.Start(t, append(stackEnv(t, testkit.RedisDBE2E), "METRICS_ADDR=public"), freeAddr(t), "serve")
	if status, body := get(t, public.URL+"/metrics"); status != 200 || !strings.Contains(body, "guidepost_http_inflight") {
		t.Fatalf("/metrics with METRICS_ADDR=public: %d %.200s", status, body)
	}
}

// A second API process whose metrics address is taken does not start, and
// says why in its last line.
func TestTakenMetricsAddressStopsTheStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(testkit.Binary(t), "serve")
	cmd.Env = append(append(cmd.Environ(), stackEnv(t, testkit.RedisDBE2E)...), "HTTP_ADDR="+freeAddr(t), "METRICS_ADDR="+ln.Addr().String())
	done := make(chan []byte, 1)
	go func() { out, _ := cmd.CombinedOutput(); done <- out }()
	select {
	case out := <-done:
		if last := lastLine(string(out)); !strings.Contains(last, "metrics:") || !strings.Contains(last, "METRICS_ADDR") ||
			!strings.Contains(last, "address already in use") || cmd.ProcessState.ExitCode() == 0 {
			t.Fatalf("exit %d, last line %q", cmd.ProcessState.ExitCode(), last)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatal("serve kept running with its metrics address taken")
	}
}
