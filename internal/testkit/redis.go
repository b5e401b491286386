package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis DB numbers, one per test package, so packages running in parallel
// never flush or read each other's keys. DB 0 belongs to `make run`.
const (
	RedisDBAPI       = 1
	RedisDBMedia     = 2
	RedisDBGuides    = 3
	RedisDBWorker    = 4
	RedisDBE2E       = 5
	RedisDBLoadtest  = 6
	RedisDBCache     = 7
	RedisDBSQL       = 8
	RedisDBE2EFault  = 9
	RedisDBCmd       = 10
	RedisDBRateLimit = 11
	RedisDBEvents    = 12
	RedisDBReadMarks = 13
	RedisDBQueue     = 14
)

// RedisAddr is the shared server's address: 127.0.0.1:6379, or
// GUIDEPOST_TEST_REDIS_ADDR, so two checkouts can run the same package's
// tests at once, each against a Redis of its own.
func RedisAddr() string {
	if a := os.Getenv("GUIDEPOST_TEST_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

// RedisURL returns the shared server's URL for db, emptied first.
func RedisURL(t testing.TB, db int) string {
	t.Helper()
	url := fmt.Sprintf("redis://%s/%d", RedisAddr(), db)
	opt, _ := redis.ParseURL(url)
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("testkit: redis: %v (run `make stack`)", err)
	}
	return url
}

// RedisClient connects to url for the test's duration.
func RedisClient(t testing.TB, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// RedisServer is a private redis-server for fault tests: stopping it never
// disturbs the shared one other packages use.
type RedisServer struct {
	Port int
	URL  string
	cmd  *exec.Cmd
	t    testing.TB
}

// StartRedis starts a private redis-server on a spare port.
func StartRedis(t testing.TB) *RedisServer {
	t.Helper()
	s := &RedisServer{Port: FreePort(t), t: t}
	s.URL = fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port)
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start (re)starts the server on the same port and waits until it answers.
func (s *RedisServer) Start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", os.TempDir())
	dieWithTest(s.cmd)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("testkit: redis-server: %v", err)
	}
	opt, _ := redis.ParseURL(s.URL)
	c := redis.NewClient(opt)
	defer c.Close()
	waitFor(s.t, "redis", 10*time.Second, func() error { return c.Ping(context.Background()).Err() })
}

// Stop kills the server; idempotent.
func (s *RedisServer) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}
