// Package config reads guidepost's typed configuration from the environment.
// Every setting has a default that works against the local stack
// (scripts/stack.sh), so `guidepost dev` needs no setup.
package config

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// DevJWTSecret is the built-in secret for local use. Production refuses it.
const DevJWTSecret = "guidepost-development-secret-do-not-use-in-production"

// Config is the whole configuration; main builds it once and injects parts.
type Config struct {
	Env               string // GUIDEPOST_ENV: development | production
	HTTPAddr          string
	DatabaseURL       string
	RedisURL          string
	S3Endpoint        string
	S3Region          string
	S3Bucket          string
	S3AccessKey       string
	S3SecretKey       string
	MediaPublicBase   string // MEDIA_PUBLIC_BASE_URL: plain URLs instead of presigned ones
	JWTSecret         string
	TokenTTL          time.Duration
	WorkerConcurrency int
	LogFormat         string // text | json
	LogLevel          string
	ShutdownTimeout   time.Duration
	MaxUploadBytes    int64
	MaxInflight       int
	QueueWait         time.Duration
	DrainDelay        time.Duration
}

// Load reads the process environment; Parse reads any lookup function.
// Both report every bad value at once.
func Load() (Config, error) { return Parse(os.Getenv) }

func Parse(getenv func(string) string) (Config, error) {
	e := env{get: getenv}
	c := Config{
		Env:               e.str("GUIDEPOST_ENV", "development"),
		HTTPAddr:          e.str("HTTP_ADDR", "127.0.0.1:8080"),
		DatabaseURL:       e.str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/guidepost?sslmode=disable"),
		RedisURL:          e.str("REDIS_URL", "redis://127.0.0.1:6379/0"),
		S3Endpoint:        e.str("S3_ENDPOINT", "http://127.0.0.1:7070"),
		S3Region:          e.str("S3_REGION", "us-east-1"),
		S3Bucket:          e.str("S3_BUCKET", "guidepost"),
		S3AccessKey:       e.str("S3_ACCESS_KEY", "guidepost"),
		S3SecretKey:       e.str("S3_SECRET_KEY", "guidepost-secret"),
		MediaPublicBase:   strings.TrimRight(e.str("MEDIA_PUBLIC_BASE_URL", ""), "/"),
		JWTSecret:         e.str("JWT_SECRET", DevJWTSecret),
		TokenTTL:          e.duration("TOKEN_TTL", 24*time.Hour),
		WorkerConcurrency: e.integer("WORKER_CONCURRENCY", runtime.NumCPU()),
		LogFormat:         e.str("LOG_FORMAT", "text"),
		LogLevel:          e.str("LOG_LEVEL", "info"),
		ShutdownTimeout:   e.duration("SHUTDOWN_TIMEOUT", 20*time.Second),
		DrainDelay:        e.duration("SHUTDOWN_DRAIN_DELAY", 0),
		MaxUploadBytes:    int64(e.integer("MAX_UPLOAD_BYTES", 25<<20)),
		MaxInflight:       e.integer("HTTP_MAX_INFLIGHT", 256),
		QueueWait:         e.duration("HTTP_QUEUE_WAIT", 100*time.Millisecond),
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		e.fail("LOG_FORMAT", c.LogFormat, "want text or json")
	}
	if c.WorkerConcurrency < 1 {
		e.fail("WORKER_CONCURRENCY", strconv.Itoa(c.WorkerConcurrency), "want at least 1")
	}
	if len(c.JWTSecret) < 32 {
		e.fail("JWT_SECRET", "(hidden)", "want at least 32 bytes")
	}
	return c, errors.Join(e.errs...)
}

// Production reports whether GUIDEPOST_ENV asks for production safeguards.
func (c Config) Production() bool { return c.Env == "production" }

// CheckServe refuses settings that are fine locally but unsafe in production.
func (c Config) CheckServe() error {
	if c.Production() && c.JWTSecret == DevJWTSecret {
		return errors.New("config: JWT_SECRET is the built-in development secret; set a real one when GUIDEPOST_ENV=production")
	}
	return nil
}

type env struct {
	get  func(string) string
	errs []error
}

func (e *env) str(key, def string) string {
	if v := e.get(key); v != "" {
		return v
	}
	return def
}

func (e *env) integer(key string, def int) int {
	v := e.get(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		e.fail(key, v, "want an integer")
	}
	return n
}

func (e *env) duration(key string, def time.Duration) time.Duration {
	v := e.get(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.fail(key, v, "want a duration such as 20s")
	}
	return d
}

func (e *env) fail(key, value, why string) {
	e.errs = append(e.errs, fmt.Errorf("config: %s=%q: %s", key, value, why))
}
