package main

import "testing"

func TestCheckTargetLoopbackOnly(t *testing.T) {
	ok := []string{
		"http://127.0.0.1:8080", "http://127.1.2.3", "http://localhost:8080", "http://LOCALHOST",
		"http://[::1]:8080", "https://127.0.0.1/", "http://[::ffff:127.0.0.1]:80",
	}
	for _, u := range ok {
		if _, err := checkTarget(u, false); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	refused := []string{
		"http://10.0.0.1:8080", "http://192.168.1.10", "http://0.0.0.0:8080", "http://[::]:8080",
		"http://example.com", "http://localhost.evil.com", "http://127.0.0.1.nip.io",
		"http://2130706433", // 127.0.0.1 as a decimal integer: not parsed, so not trusted
		"ftp://127.0.0.1", "127.0.0.1:8080", "http://", "http://[fe80::1]",
	}
	for _, u := range refused {
		if _, err := checkTarget(u, false); err == nil {
			t.Errorf("%s accepted without -allow-remote", u)
		}
	}
	if _, err := checkTarget("http://10.0.0.1:8080", true); err != nil {
		t.Errorf("-allow-remote must accept a remote host: %v", err)
	}
	if _, err := checkTarget("ftp://10.0.0.1", true); err == nil {
		t.Error("-allow-remote must still require http(s)")
	}
}

func TestRunRefusesRemoteTarget(t *testing.T) {
	cfg := defaultConfig()
	cfg.Scenario, cfg.Target, cfg.NoWrite = "read", "http://203.0.113.7:8080", true
	if _, err := run(t.Context(), cfg); err == nil {
		t.Fatal("run accepted a non-loopback target")
	}
}
