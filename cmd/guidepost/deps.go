package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/objstore"
	gsql "github.com/guidepost/guidepost/sql"
)

// app holds the process-wide dependencies every subcommand shares.
type app struct {
	cfg      config.Config
	log      *slog.Logger
	clock    guidepost.Clock
	registry *prometheus.Registry
	db       *gsql.DB
	redis    *redis.Client
	blobs    *objstore.S3
}

// open connects to PostgreSQL, Redis and S3, failing with one line that
// names the first dependency that cannot be reached.
func open(ctx context.Context, cfg config.Config, log *slog.Logger) (*app, error) {
	a := &app{cfg: cfg, log: log, clock: guidepost.SystemClock{}, registry: prometheus.NewRegistry()}
	a.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var err error
	if a.db, err = gsql.Open(ctx, cfg.DatabaseURL); err != nil {
		return nil, err
	}
	a.db.Register(a.registry)
	if a.redis, err = openRedis(ctx, cfg.RedisURL); err != nil {
		a.Close()
		return nil, err
	}
	a.blobs = objstore.New(objstore.Config{
		Endpoint: cfg.S3Endpoint, Region: cfg.S3Region, Bucket: cfg.S3Bucket,
		AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey,
	})
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := a.blobs.Ping(pctx); err != nil {
		a.Close()
		return nil, fmt.Errorf("s3: cannot reach bucket %q at %s: %v", cfg.S3Bucket, cfg.S3Endpoint, err)
	}
	return a, nil
}

func openRedis(ctx context.Context, url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis: bad REDIS_URL: %w", err)
	}
	opt.DialTimeout = 2 * time.Second
	// Reads and writes answer fast or not at all: the cache falls back to
	// PostgreSQL rather than stall a request on a sick Redis.
	opt.ReadTimeout, opt.WriteTimeout = time.Second, time.Second
	client := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("redis: cannot reach %s: %w", opt.Addr, err)
	}
	return client, nil
}

// checks are what /readyz reports.
func (a *app) checks() []api.Check {
	return []api.Check{
		{Name: "postgres", Ping: a.db.Ping},
		{Name: "redis", Ping: func(ctx context.Context) error { return a.redis.Ping(ctx).Err() }},
		{Name: "s3", Ping: a.blobs.Ping},
	}
}

// Close releases pools in reverse order of opening.
func (a *app) Close() {
	if a.redis != nil {
		a.redis.Close()
	}
	if a.db != nil {
		a.db.Close()
	}
}
