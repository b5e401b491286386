package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/auth/deletion"
	"github.com/guidepost/guidepost/blocks"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/events"
	"github.com/guidepost/guidepost/events/redisevents"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/idempotency"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/moderation"
	"github.com/guidepost/guidepost/objstore"
	"github.com/guidepost/guidepost/queue"
	"github.com/guidepost/guidepost/ratelimit"
	"github.com/guidepost/guidepost/readmarks"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

// The implementations the API consumes, checked at compile time. Every
// other assertion sits in its implementing package; these cannot: the
// implementations live in packages that api imports (or that must not
// depend on the HTTP layer), and guides.MediaURLs is media's, which guides
// imports.
var (
	_ api.MediaService      = (*media.Service)(nil)
	_ api.UploadService     = (*media.Service)(nil)
	_ api.GuideService      = (*guides.Service)(nil)
	_ api.AccountService    = (*deletion.Service)(nil)
	_ api.ModerationService = (*moderation.Service)(nil)
	_ api.BlockService      = (*blocks.Service)(nil)
	_ api.Limiter           = (*ratelimit.Redis)(nil)
	_ api.EventLog          = (*redisevents.Redis)(nil)
	_ api.ReadMarks         = (*readmarks.Redis)(nil)
	_ guides.MediaURLs      = (*media.Service)(nil)
)

// app holds the process-wide dependencies every subcommand shares.
type app struct {
	cfg      config.Config
	log      *slog.Logger
	clock    guidepost.Clock
	registry *prometheus.Registry
	db       *gsql.DB
	redis    redis.UniversalClient // one server, or the primary of a Sentinel set
	blobs    *objstore.S3

	eventsOnce sync.Once
	eventLog   *redisevents.Redis
}

// open connects to PostgreSQL, Redis and S3, failing with one line that
// names the first dependency that cannot be reached.
func open(ctx context.Context, cfg config.Config, log *slog.Logger) (*app, error) {
	a := &app{cfg: cfg, log: log, clock: guidepost.SystemClock{}, registry: prometheus.NewRegistry()}
	a.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var err error
	r := cfg.Replicas
	if a.db, err = gsql.OpenWith(ctx, cfg.DatabaseURL, gsql.Options{StatementTimeout: cfg.StatementTimeout,
		Replicas: gsql.ReplicaOptions{URLs: r.URLs, MaxLag: r.MaxLag, Wait: r.Wait, Registerer: a.registry, Log: a.logFor("replicas")},
	}); err != nil {
		return nil, err
	}
	a.db.Register(a.registry)
	if a.redis, err = openRedis(ctx, cfg.RedisURL); err != nil {
		a.Close()
		return nil, err
	}
	a.blobs = objstore.New(objstore.Config{
		Endpoint: cfg.S3Endpoint, PublicEndpoint: cfg.S3PublicEndpoint, Region: cfg.S3Region, Bucket: cfg.S3Bucket,
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

// openRedis connects to one Redis server, or through Sentinel to the
// current primary of a Sentinel set (REDIS_URL=redis-sentinel://…). Every
// Redis user (queue, cache, queue metrics) gets this one client, so all of
// them follow a failover together.
func openRedis(ctx context.Context, url string) (redis.UniversalClient, error) {
	// Reads and writes answer fast or not at all: the cache falls back to
	// PostgreSQL rather than stall a request on a sick Redis.
	const dial, rw = 2 * time.Second, time.Second
	var client redis.UniversalClient
	var where string
	if s, ok, err := config.ParseSentinelURL(url); ok {
		if err != nil {
			return nil, fmt.Errorf("redis: bad REDIS_URL: %w", err)
		}
		client = redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: s.MasterName, SentinelAddrs: s.Addrs, DB: s.DB,
			Username: s.Username, Password: s.Password,
			DialTimeout: dial, ReadTimeout: rw, WriteTimeout: rw,
		})
		where = fmt.Sprintf("primary %q through sentinels %s", s.MasterName, strings.Join(s.Addrs, ","))
	} else {
		opt, err := redis.ParseURL(url)
		if err != nil {
			return nil, fmt.Errorf("redis: bad REDIS_URL: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = dial, rw, rw
		client, where = redis.NewClient(opt), opt.Addr
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("redis: cannot reach %s: %w", where, err)
	}
	return client, nil
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

// logFor is the logger a component gets: the process's, naming the
// component on every line.
func (a *app) logFor(service string) *slog.Logger { return a.log.With("service", service) }

// checks are what /readyz reports. Only PostgreSQL gates readiness: without
// Redis the cache answers from PostgreSQL and uploads still store, without
// S3 uploads answer 503 by themselves; both show as degraded.
func (a *app) checks() []api.Check {
	checks := []api.Check{
		{Name: "postgres", Ping: a.db.Ping},
		{Name: "redis", Ping: func(ctx context.Context) error { return a.redis.Ping(ctx).Err() }, Optional: true},
		{Name: "s3", Ping: a.blobs.Ping, Optional: true},
	}
	if len(a.cfg.Replicas.URLs) > 0 {
		checks = append(checks, api.Check{Name: "postgres_replicas", Ping: a.db.ReplicasReady, Optional: true})
	}
	return checks
}

// wireAPI builds the feature services the API serves, and the queue gauges
// the load-test tool reads from the API's /metrics. The returned stop ends
// whatever background work they started (the guide cache, the like
// committers, the session-check readers), and waits for it.
func (a *app) wireAPI(ctx context.Context, deps *api.Deps) (stop func()) {
	tokens := auth.NewTokens(a.cfg.JWTSecret, a.cfg.TokenTTL, a.clock)
	lim := a.cfg.Limits
	limiter := ratelimit.New(a.redis, ratelimit.Options{Registerer: a.registry, Log: a.logFor("ratelimit")})
	users := gsql.NewUsers(a.db)
	if err := users.StartSessionChecks(gsql.SessionCheckOptions{Registerer: a.registry}); err != nil {
		panic(err) // a new store: cannot be started already
	}
	deps.Auth = a.authService(users, tokens).WithLoginLimits(auth.LoginLimits{
		Limiter: limiter, PerAddr: lim.LoginIP, PerEmail: lim.LoginEmail, InFlightPerAddr: lim.LoginsPerAddr,
		PerRefreshToken: lim.RefreshToken,
	})
	deps.Limiter = limiter
	deps.Rates = api.Rates{Signup: lim.Signup, Guest: lim.Guest, GuideWrite: lim.GuideWrite, Like: lim.Like, Rename: lim.Rename, Refresh: lim.RefreshIP,
		Report: lim.Report, Block: lim.Block, GuideRefusals: lim.GuideRefusals, UploadRefusals: lim.UploadRefusals}
	deps.Uploads = api.UploadLimits{Slots: lim.UploadSlots, PerUser: lim.UploadsPerUser, PerAddr: lim.UploadsPerAddr, MinRate: lim.UploadMinRate, Grace: lim.UploadGrace}
	deps.Bodies = api.BodyLimits{PerAddr: lim.BodiesPerAddr, MinRate: lim.BodyMinRate, Grace: lim.BodyGrace}
	deps.TrustedProxies = lim.TrustedProxies
	deps.CORS = api.CORS{Origins: a.cfg.CORSOrigins}
	blockSets, stopBlocks := a.blockSets(ctx)
	deps.Blocks = blocks.NewService(blockSets, a.clock, lim.BlocksMax)
	mediaSvc := a.mediaService(nil, blockSets, true).WithUploadRate(limiter, lim.Upload)
	deps.Media = mediaSvc
	deps.Accounts = a.accountService(mediaSvc)
	deps.Direct = mediaSvc
	queue.RegisterMetrics(a.registry, a.redis, a.logFor("queue_metrics"))
	store, stopGuides := a.guideStore(ctx)
	svc := guides.NewService(store, a.clock, guides.CursorKey(a.cfg.JWTSecret), mediaSvc).WithPlaces(mediaSvc).
		WithKeys(idempotency.Keeper{Store: gsql.NewIdempotencyKeys(a.db), Clock: a.clock, Log: a.logFor("guides")}).
		WithBlocks(blockSets)
	if stamps, ok := store.(guides.Stamps); ok { // the cache: map reads get ETags
		svc = svc.WithStamps(stamps)
	}
	deps.Guides = svc
	if len(a.cfg.Replicas.URLs) > 0 {
		// A mark outlives any replica still in rotation being behind it.
		deps.Marks = readmarks.New(a.redis, readmarks.Options{
			TTL: 2*a.cfg.Replicas.MaxLag + time.Second, Registerer: a.registry, Log: a.logFor("readmarks"),
		})
	}
	deps.Moderation, deps.Contact = a.moderationService(svc, mediaSvc), a.cfg.Moderation.Contact
	var stopFeed func()
	deps.Events, stopFeed = a.eventStreams(ctx)
	return func() { stopFeed(); stopGuides(); stopBlocks(); users.StopSessionChecks() }
}

// blockSets is the block store behind the in-memory block sets, which
// follow the block feed until the returned stop (which waits for it).
func (a *app) blockSets(ctx context.Context) (*cache.Blocks, func()) {
	store := gsql.NewBlocks(a.db)
	c := cache.NewBlocks(store, store, cache.BlocksOptions{Registerer: a.registry, Log: a.logFor("blocks")})
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(fctx) })
	return c, func() { cancel(); wg.Wait() }
}

// moderationService acts on guides and photos through their own services,
// so a removal is the owner's delete; the admin commands build it without
// them (they only change roles).
func (a *app) moderationService(guidesSvc moderation.Deleter, photos moderation.Photos) *moderation.Service {
	var n moderation.Notifier
	if a.redis != nil {
		n = a.events()
	}
	return moderation.New(moderation.Deps{
		Store: gsql.NewModeration(a.db), Guides: guidesSvc, Photos: photos, Notifier: n,
		Clock: a.clock, Log: a.logFor("moderation"), Registerer: a.registry,
	}, moderation.Config{AutoHideReports: a.cfg.Moderation.AutoHideReports})
}

// events is the process's one event log (the API and the worker of `dev`
// share it, and its metrics).
func (a *app) events() *redisevents.Redis {
	a.eventsOnce.Do(func() {
		a.eventLog = redisevents.New(a.redis, redisevents.Options{
			Window: a.cfg.Events.ResumeWindow, Registerer: a.registry, Log: a.logFor("events"),
		})
	})
	return a.eventLog
}

// eventStreams follows the event channel for this process's streams until
// the returned stop, which waits for it; the HTTP server has stopped (and
// every stream ended) by then.
func (a *app) eventStreams(ctx context.Context) (api.EventStreams, func()) {
	hub := events.NewHub(events.HubOptions{PerUser: a.cfg.Events.PerUser, Max: a.cfg.Events.MaxStreams, Registerer: a.registry})
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { a.events().Run(fctx, hub) })
	return api.EventStreams{Hub: hub, Log: a.events(), Tickets: a.events()}, func() { cancel(); wg.Wait() }
}

// mediaService builds the feature on the app's pools. The API and the worker
// each build one; they share nothing in memory, only PostgreSQL, S3 and Redis.
// The API's reads photos on replicas (onReplicas); the worker's on the
// primary, which has every photo it is handed.
func (a *app) mediaService(obs media.Observer, bl media.Blocks, onReplicas bool) *media.Service {
	m := a.cfg.Media
	store := gsql.NewMedia(a.db)
	if onReplicas {
		store = store.ReadingReplicas()
	}
	return media.New(media.Deps{
		Store: store, Keys: gsql.NewIdempotencyKeys(a.db), Blobs: a.blobs,
		Queue: queue.NewClient(a.redis), Clock: a.clock, Observer: obs, Log: a.logFor("media"), Notifier: a.events(),
		Renderer: a.childRenderer(),
		Uploads:  gsql.NewUploads(a.db), Multipart: a.blobs, Blocks: bl,
	}, media.Config{
		MaxBytes: m.MaxUploadBytes, PublicBase: m.PublicBase, Formats: m.Formats,
		PendingAge: m.PendingAge, OrphanAge: m.OrphanAge, RenderSlots: a.cfg.WorkerConcurrency,
		QuotaPhotos: a.cfg.Limits.QuotaPhotos, QuotaBytes: a.cfg.Limits.QuotaBytes,
		Direct: media.DirectConfig{
			TTL: m.UploadTTL, URLTTL: m.UploadURLTTL, MaxOpen: m.UploadMaxOpen, DayBytes: m.UploadDayBytes,
		},
	})
}

// childRenderer renders each photo in a child process of this binary, which
// the worker can kill and hold to a CPU and memory limit; in process only
// if the binary cannot find itself.
func (a *app) childRenderer() media.Renderer {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return &worker.ChildRenderer{Command: []string{self, worker.RenderChildCommand}, Log: a.logFor("render")}
}

// accountService deletes accounts; the API marks them, the worker removes
// what they owned through photos.
func (a *app) accountService(photos deletion.Photos) *deletion.Service {
	return deletion.New(deletion.Deps{
		Store: gsql.NewAccounts(a.db), Photos: photos, Queue: queue.NewClient(a.redis), Clock: a.clock, Log: a.logFor("account"),
	})
}

// guideStore is the PostgreSQL store, behind the nearby/viewport cache
// unless GUIDES_CACHE=off, with likes group-committed. The returned stop
// ends the cache's version feed and the like committers, and waits for
// them; the HTTP server has stopped by then, so every like was answered.
func (a *app) guideStore(ctx context.Context) (s guides.Store, stop func()) {
	store := gsql.NewGuides(a.db)
	if err := store.StartLikeBatching(gsql.LikeBatchOptions{Registerer: a.registry}); err != nil {
		panic(err) // a new store: cannot be started already
	}
	g := a.cfg.Guides
	if !g.Cache {
		return store, store.StopLikeBatching
	}
	c := cache.New(store, store, cache.Options{
		Redis: a.redis, Registerer: a.registry, Log: a.logFor("cache"),
		LikePoll: g.LikePoll, RefreshAfter: g.RefreshAfter, MaxAge: g.MaxAge, RedisTimeout: g.RedisTimeout,
		L1Bytes: g.L1Bytes, MaxTileGuides: g.MaxTileGuides,
	})
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(cctx) })
	a.awaitSync(ctx, c)
	return c, func() { cancel(); wg.Wait(); store.StopLikeBatching() }
}

// awaitSync gives the cache up to 5 s to read every tile's version before
// the process listens: that read (148,050 tiles at 1 M guides) competes
// with the first requests for the CPU otherwise. Past it the process
// listens anyway; the database answers until the cache has synced.
func (a *app) awaitSync(ctx context.Context, c *cache.Guides) {
	start := time.Now()
	for !c.Ready() {
		if time.Since(start) > 5*time.Second || ctx.Err() != nil {
			a.log.Warn("guides cache: not synced yet; listening anyway", "waited", time.Since(start).Round(time.Millisecond))
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openAndRun starts a long-running command (serve, worker): it refuses an
// unsafe configuration, connects to every dependency, runs, and closes the
// pools only after run has returned.
func openAndRun(ctx context.Context, cfg config.Config, log *slog.Logger, run func(*app, context.Context) error) error {
	if err := cfg.CheckServe(); err != nil {
		return err
	}
	a, err := open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	return run(a, ctx)
}

// authService is the account service on its store, with the session
// policy from config; the API serves it, the worker sweeps with it.
func (a *app) authService(users *gsql.Users, tokens *auth.Tokens) *auth.Service {
	c := a.cfg.Sessions
	return auth.NewService(users, tokens, a.clock).WithRefreshTTL(a.cfg.RefreshTTL).
		WithSessionPolicy(auth.SessionPolicy{MaxAge: c.MaxAge, Grace: c.Grace})
}

// sessionSweeper keeps the session tables bounded; a used refresh token is
// kept at least through its grace.
func (a *app) sessionSweeper() *auth.Sweeper {
	c := a.cfg.Sessions
	return &auth.Sweeper{Store: gsql.NewUsers(a.db), Clock: a.clock,
		UsedRetention: max(c.UsedRetention, c.Grace), GuestIdle: c.GuestIdle}
}
