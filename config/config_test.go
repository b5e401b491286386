package config

import (
	"strings"
	"testing"
	"time"
)

func getenv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultsWorkLocally(t *testing.T) {
	c, err := Parse(getenv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:8080" || c.ShutdownTimeout != 20*time.Second || c.MaxUploadBytes != 25<<20 {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	if err := c.CheckServe(); err != nil {
		t.Fatalf("development must accept the dev secret: %v", err)
	}
}

func TestProductionRefusesDevSecret(t *testing.T) {
	c, err := Parse(getenv(map[string]string{"GUIDEPOST_ENV": "production"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckServe(); err == nil || !strings.Contains(err.Error(), "JWT_SECRET") {
		t.Fatalf("want refusal naming JWT_SECRET, got %v", err)
	}
	c.JWTSecret = strings.Repeat("s", 40)
	if err := c.CheckServe(); err != nil {
		t.Fatal(err)
	}
}

func TestBadValuesAreAllReported(t *testing.T) {
	_, err := Parse(getenv(map[string]string{
		"LOG_FORMAT": "xml", "WORKER_CONCURRENCY": "many", "SHUTDOWN_TIMEOUT": "soon", "JWT_SECRET": "short",
	}))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, key := range []string{"LOG_FORMAT", "WORKER_CONCURRENCY", "SHUTDOWN_TIMEOUT", "JWT_SECRET"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
	if strings.Contains(err.Error(), "short") {
		t.Error("the secret's value leaked into the error")
	}
}
