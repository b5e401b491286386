// Package config reads guidepost's typed configuration from the environment.
// Every setting has a default that works against the local stack
// (scripts/stack.sh), so `guidepost dev` needs no setup. README.md's
// Configuration table lists every variable; a test holds the two together.
package config

import (
	"errors"
	"log/slog"
	"runtime"
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
	JWTSecret         string
	TokenTTL          time.Duration
	WorkerConcurrency int
	WorkerMetricsAddr string // WORKER_METRICS_ADDR: where `guidepost worker` serves /metrics; "" is off
	LogFormat         string // text | json
	LogLevel          slog.Level
	ShutdownTimeout   time.Duration
	MaxInflight       int
	QueueWait         time.Duration
	DrainDelay        time.Duration
	Media             Media
	Guides            Guides
}

// Media configures photo uploads and the sweeper; the defaults suit
// production, tests shorten the ages.
type Media struct {
	MaxUploadBytes int64         // MAX_UPLOAD_BYTES
	PublicBase     string        // MEDIA_PUBLIC_BASE_URL: plain URLs instead of presigned ones
	SweepInterval  time.Duration // MEDIA_SWEEP_INTERVAL: how often a worker tries to sweep
	PendingAge     time.Duration // MEDIA_PENDING_AGE: unfinished this long → checked for a live task
	OrphanAge      time.Duration // MEDIA_ORPHAN_AGE: an original with no row this old is deleted
}

// Guides configures the nearby/viewport cache.
type Guides struct {
	Cache         bool          // GUIDES_CACHE: off answers every query from PostgreSQL
	LikePoll      time.Duration // GUIDES_CACHE_LIKE_POLL: lists lag likes by about this
	RefreshAfter  time.Duration // GUIDES_CACHE_REFRESH: an older tile is refreshed in the background, a backstop
	MaxAge        time.Duration // GUIDES_CACHE_MAX_AGE: never serve a tile older than this, a backstop
	RedisTimeout  time.Duration // GUIDES_CACHE_REDIS_TIMEOUT: then PostgreSQL answers instead
	L1Bytes       uint64        // GUIDES_CACHE_L1_MB, in bytes: the in-process tier's size
	MaxTileGuides int           // GUIDES_CACHE_MAX_TILE_GUIDES: a denser tile is not cached
}

// Parse reads every setting through getenv (os.Getenv in main, a map in
// tests) and reports every bad value at once.
func Parse(getenv func(string) string) (Config, error) {
	e := env{get: getenv}
	c := Config{
		Env:               e.oneOf("GUIDEPOST_ENV", "development", "development", "production"),
		HTTPAddr:          e.str("HTTP_ADDR", "127.0.0.1:8080"),
		DatabaseURL:       e.str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/guidepost?sslmode=disable"),
		RedisURL:          e.redis("REDIS_URL", "redis://127.0.0.1:6379/0"),
		S3Endpoint:        e.str("S3_ENDPOINT", "http://127.0.0.1:7070"),
		S3Region:          e.str("S3_REGION", "us-east-1"),
		S3Bucket:          e.str("S3_BUCKET", "guidepost"),
		S3AccessKey:       e.str("S3_ACCESS_KEY", "guidepost"),
		S3SecretKey:       e.str("S3_SECRET_KEY", "guidepost-secret"),
		JWTSecret:         e.str("JWT_SECRET", DevJWTSecret),
		TokenTTL:          e.duration("TOKEN_TTL", 24*time.Hour, time.Nanosecond),
		WorkerConcurrency: e.integer("WORKER_CONCURRENCY", runtime.NumCPU(), 1),
		WorkerMetricsAddr: e.str("WORKER_METRICS_ADDR", ""),
		LogFormat:         e.oneOf("LOG_FORMAT", "text", "text", "json"),
		LogLevel:          logLevel(e.oneOf("LOG_LEVEL", "info", "debug", "info", "warn", "error")),
		ShutdownTimeout:   e.duration("SHUTDOWN_TIMEOUT", 20*time.Second, time.Nanosecond),
		DrainDelay:        e.duration("SHUTDOWN_DRAIN_DELAY", 0, 0),
		MaxInflight:       e.integer("HTTP_MAX_INFLIGHT", 256, 1),
		QueueWait:         e.duration("HTTP_QUEUE_WAIT", 100*time.Millisecond, time.Nanosecond),
		Media: Media{
			MaxUploadBytes: e.bytes("MAX_UPLOAD_BYTES", 25<<20),
			PublicBase:     strings.TrimRight(e.str("MEDIA_PUBLIC_BASE_URL", ""), "/"),
			SweepInterval:  e.duration("MEDIA_SWEEP_INTERVAL", time.Minute, time.Nanosecond),
			PendingAge:     e.duration("MEDIA_PENDING_AGE", 5*time.Minute, time.Nanosecond),
			OrphanAge:      e.duration("MEDIA_ORPHAN_AGE", 24*time.Hour, time.Nanosecond),
		},
		Guides: Guides{
			Cache:         e.boolean("GUIDES_CACHE", true),
			LikePoll:      e.duration("GUIDES_CACHE_LIKE_POLL", time.Second, time.Nanosecond),
			RefreshAfter:  e.duration("GUIDES_CACHE_REFRESH", 30*time.Second, time.Nanosecond),
			MaxAge:        e.duration("GUIDES_CACHE_MAX_AGE", 2*time.Minute, time.Nanosecond),
			RedisTimeout:  e.duration("GUIDES_CACHE_REDIS_TIMEOUT", 200*time.Millisecond, time.Nanosecond),
			L1Bytes:       uint64(e.integer("GUIDES_CACHE_L1_MB", 256, 1)) << 20,
			MaxTileGuides: e.integer("GUIDES_CACHE_MAX_TILE_GUIDES", 4000, 1),
		},
	}
	if len(c.JWTSecret) < 32 {
		e.fail("JWT_SECRET", "(hidden)", "want at least 32 bytes")
	}
	return c, errors.Join(e.errs...)
}

func logLevel(name string) slog.Level {
	var l slog.Level
	l.UnmarshalText([]byte(name)) // oneOf let only slog's own names through
	return l
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
