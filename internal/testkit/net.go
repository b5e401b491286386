package testkit

import (
	"net"
	"testing"
	"time"
)

// FreePort asks the kernel for a port nobody listens on.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls check until it succeeds or the time is up.
func waitFor(t testing.TB, what string, limit time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("testkit: %s not ready after %s: %v", what, limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
