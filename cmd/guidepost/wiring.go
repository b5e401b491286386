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
	for _, c := range []prometheus.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := a.registry.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	var err error
	r := cfg.Replicas
	if a.db, err = gsql.OpenWith(ctx, cfg.DatabaseURL, gsql.Config{StatementTimeout: cfg.StatementTimeout,
		Replicas: gsql.ReplicaConfig{URLs: r.URLs, MaxLag: r.MaxLag, Wait: r.Wait, Registerer: a.registry, Log: a.logFor("replicas")},
	}); err != nil {
		return nil, err
	}
	a.db.Register(a.registry)
	if a.redis, err = openRedis(ctx, cfg.RedisURL); err != nil {
		a.Close()
		return nil, err
	}
	if a.blobs, err = openBlobs(ctx, cfg); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// openBlobs is the S3 bucket, reached once so that a wrong endpoint fails
// at start.
func openBlobs(ctx context.Context, cfg config.Config) (*objstore.S3, error) {
	blobs := objstore.New(objstore.Config{
		Endpoint: cfg.S3Endpoint, PublicEndpoint: cfg.S3PublicEndpoint, Region: cfg.S3Region, Bucket: cfg.S3Bucket,
		AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey,
	})
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := blobs.Ping(pctx); err != nil {
		return nil, fmt.Errorf("s3: cannot reach bucket %q at %s: %v", cfg.S3Bucket, cfg.S3Endpoint, err)
	}
	return blobs, nil
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

// wireAPI builds, in one place, everything the API serves: the feature
// services on the app's pools, the queue gauges the load-test tool reads
// from the API's /metrics, and the API's configuration. The returned stop
// ends whatever background work they started (the event feed, the guide
// cache, the like committers, the block feed, the session-check readers,
// the account committers), and waits for it; on an error, what had
// started is stopped already.
func (a *app) wireAPI(ctx context.Context) (deps api.Deps, cfg api.Config, stop func(), err error) {
	var stops stopList
	defer func() {
		if err != nil {
			stops.stop()
		}
	}()
	users := gsql.NewUsers(a.db)
	if err := users.StartSessionChecks(gsql.SessionCheckOptions{Registerer: a.registry}); err != nil {
		return api.Deps{}, api.Config{}, nil, fmt.Errorf("session checks: %w", err)
	}
	stops.add(users.StopSessionChecks)
	if err := users.StartAccountBatching(gsql.AccountBatchOptions{Registerer: a.registry}); err != nil {
		return api.Deps{}, api.Config{}, nil, fmt.Errorf("account batching: %w", err)
	}
	stops.add(users.StopAccountBatching)
	limiter := ratelimit.New(ratelimit.Deps{Client: a.redis, Registerer: a.registry, Log: a.logFor("ratelimit")}, ratelimit.Config{})
	blockSets, stopBlocks := a.blockSets(ctx)
	stops.add(stopBlocks)
	// The API's service times each step of a direct upload (media.StepTimes).
	mediaSvc := a.mediaService(media.NewStepTimes(a.registry), blockSets, limiter, true)
	store, stopGuides, err := a.guideStore(ctx)
	if err != nil {
		return api.Deps{}, api.Config{}, nil, err
	}
	stops.add(stopGuides)
	guideSvc := a.guideService(store, mediaSvc, blockSets)
	streams, stopFeed := a.eventStreams(ctx)
	stops.add(stopFeed)
	queue.RegisterMetrics(a.registry, a.redis, a.logFor("queue_metrics"))
	deps = api.Deps{
		Log: a.logFor("api"), Registry: a.registry, Checks: a.checks(), Clock: a.clock,
		Auth:     a.authService(users, limiter),
		Accounts: a.accountService(mediaSvc),
		Media:    mediaSvc, Direct: mediaSvc,
		Guides:     guideSvc,
		Blocks:     blocks.New(blocks.Deps{Store: blockSets, Clock: a.clock}, blocks.Config{Max: a.cfg.Limits.BlocksMax}),
		Limiter:    limiter,
		Events:     streams,
		Marks:      a.readMarks(),
		Moderation: a.moderationService(guideSvc, mediaSvc),
	}
	return deps, a.apiConfig(), stops.stop, nil
}

// apiConfig is the API's part of the configuration.
func (a *app) apiConfig() api.Config {
	lim := a.cfg.Limits
	return api.Config{
		MetricsElsewhere: a.cfg.MetricsAddr != config.MetricsPublic,
		MaxInflight:      a.cfg.MaxInflight, QueueWait: a.cfg.QueueWait, RequestTimeout: a.cfg.RequestTimeout,
		Uploads: api.UploadLimits{Slots: lim.UploadSlots, PerUser: lim.UploadsPerUser, PerAddr: lim.UploadsPerAddr,
			MinRate: lim.UploadMinRate, Grace: lim.UploadGrace},
		Bodies: api.BodyLimits{PerAddr: lim.BodiesPerAddr, MinRate: lim.BodyMinRate, Grace: lim.BodyGrace},
		Rates: api.Rates{Signup: lim.Signup, Guest: lim.Guest, GuideWrite: lim.GuideWrite, Like: lim.Like, Rename: lim.Rename,
			Refresh: lim.RefreshIP, Report: lim.Report, Block: lim.Block, GuideRefusals: lim.GuideRefusals, UploadRefusals: lim.UploadRefusals},
		TrustedProxies: lim.TrustedProxies,
		Contact:        a.cfg.Moderation.Contact,
		CORS:           api.CORS{Origins: a.cfg.CORSOrigins},
	}
}

// stopList stops what was started, last first.
type stopList []func()

func (l *stopList) add(stop func()) { *l = append(*l, stop) }

func (l *stopList) stop() {
	for i := len(*l) - 1; i >= 0; i-- {
		(*l)[i]()
	}
	*l = nil
}

// wireWorker builds the photo worker and its sweeper on the app's pools.
func (a *app) wireWorker() *worker.Worker {
	metrics := worker.NewMetrics(a.registry)
	queue.RegisterMetrics(a.registry, a.redis, a.logFor("queue_metrics"))
	svc := a.mediaService(metrics, nil, nil, false)
	accounts := a.accountService(svc)
	sweeper := worker.NewSweeper(worker.SweeperDeps{
		Lock: gsql.NewMedia(a.db), Media: svc, Accounts: accounts, Sessions: a.sessionSweeper(),
		Metrics: metrics, Log: a.logFor("sweeper"),
	}, worker.SweeperConfig{Interval: a.cfg.Media.SweepInterval})
	mux := worker.NewMux(svc, metrics)
	worker.HandlePurges(mux, svc.Purge, accounts.Purge, metrics)
	return worker.New(worker.Deps{Redis: a.redis, Handler: mux, Sweeper: sweeper, Log: a.logFor("worker")},
		worker.Config{Concurrency: a.cfg.WorkerConcurrency, ShutdownTimeout: a.cfg.ShutdownTimeout})
}

// blockSets is the block store behind the in-memory block sets, which
// follow the block feed until the returned stop (which waits for it).
func (a *app) blockSets(ctx context.Context) (*cache.Blocks, func()) {
	store := gsql.NewBlocks(a.db)
	c := cache.NewBlocks(cache.BlocksDeps{Store: store, Feed: store, Registerer: a.registry, Log: a.logFor("blocks")}, cache.BlocksConfig{})
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(fctx) })
	return c, func() { cancel(); wg.Wait() }
}

// moderationService acts on guides and photos through their own services,
// so a removal is the owner's delete.
func (a *app) moderationService(guidesSvc moderation.Deleter, photos moderation.Photos) *moderation.Service {
	return moderation.New(moderation.Deps{
		Store: gsql.NewModeration(a.db), Guides: guidesSvc, Photos: photos, Notifier: a.events(),
		Clock: a.clock, Log: a.logFor("moderation"), Registerer: a.registry,
	}, moderation.Config{AutoHideReports: a.cfg.Moderation.AutoHideReports})
}

// roleService is moderation without guides, photos or Redis: the admin
// commands only change roles.
func roleService(db *gsql.DB, log *slog.Logger) *moderation.Service {
	return moderation.New(moderation.Deps{Store: gsql.NewModeration(db), Log: log}, moderation.Config{})
}

// events is the process's one event log (the API and the worker of `dev`
// share it, and its metrics).
func (a *app) events() *redisevents.Redis {
	a.eventsOnce.Do(func() {
		a.eventLog = redisevents.New(redisevents.Deps{Client: a.redis, Registerer: a.registry, Log: a.logFor("events")},
			redisevents.Config{Window: a.cfg.Events.ResumeWindow})
	})
	return a.eventLog
}

// eventStreams follows the event channel for this process's streams until
// the returned stop, which waits for it; the HTTP server has stopped (and
// every stream ended) by then.
func (a *app) eventStreams(ctx context.Context) (api.EventStreams, func()) {
	hub := events.NewHub(events.HubDeps{Registerer: a.registry},
		events.HubConfig{PerUser: a.cfg.Events.PerUser, Max: a.cfg.Events.MaxStreams})
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { a.events().Run(fctx, hub) })
	return api.EventStreams{Hub: hub, Log: a.events(), Tickets: a.events()}, func() { cancel(); wg.Wait() }
}

// readMarks make a client's reads see its own writes when reads may go to
// replicas; none without replicas. A mark outlives any replica still in
// rotation being behind it.
func (a *app) readMarks() api.ReadMarks {
	if len(a.cfg.Replicas.URLs) == 0 {
		return nil
	}
	return readmarks.New(readmarks.Deps{Client: a.redis, Registerer: a.registry, Log: a.logFor("readmarks")},
		readmarks.Config{TTL: 2*a.cfg.Replicas.MaxLag + time.Second})
}

// mediaService builds the feature on the app's pools. The API and the worker
// each build one; they share nothing in memory, only PostgreSQL, S3 and Redis.
// The API's reads photos on replicas (onReplicas) and counts uploads in
// limiter; the worker's reads on the primary, which has every photo it is
// handed.
func (a *app) mediaService(obs media.Observer, bl media.Blocks, limiter media.Limiter, onReplicas bool) *media.Service {
	store := gsql.NewMedia(a.db)
	if onReplicas {
		store = store.ReadingReplicas()
	}
	return media.New(media.Deps{
		Store: store, Keys: gsql.NewIdempotencyKeys(a.db), Blobs: a.blobs,
		Queue: queue.NewClient(a.redis), Clock: a.clock, Observer: obs, Log: a.logFor("media"), Notifier: a.events(),
		Renderer: a.childRenderer(),
		Uploads:  gsql.NewUploads(a.db), Multipart: a.blobs, Blocks: bl, Limiter: limiter,
	}, a.mediaConfig())
}

// mediaConfig is the media feature's part of the configuration; what
// config does not set takes media's defaults.
func (a *app) mediaConfig() media.Config {
	m := a.cfg.Media
	return media.Config{
		MaxBytes: m.MaxUploadBytes, PublicBase: m.PublicBase, Formats: m.Formats,
		PendingAge: m.PendingAge, OrphanAge: m.OrphanAge, RenderSlots: a.cfg.WorkerConcurrency,
		QuotaPhotos: a.cfg.Limits.QuotaPhotos, QuotaBytes: a.cfg.Limits.QuotaBytes, UploadRate: a.cfg.Limits.Upload,
		Direct: media.DirectConfig{
			TTL: m.UploadTTL, URLTTL: m.UploadURLTTL, MaxOpen: m.UploadMaxOpen, DayBytes: m.UploadDayBytes,
		},
	}
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

// guideService is the guide feature on store: the cache's map reads get
// ETags (its stamps), guides are pinned where a photo was taken, and a
// signed-in answer leaves out whom its viewer blocks (bl nil: the seed
// command, which has no viewers).
func (a *app) guideService(store guides.Store, mediaSvc *media.Service, bl guides.Blocks) *guides.Service {
	stamps, _ := store.(guides.Stamps)
	return guides.New(guides.Deps{Store: store, Clock: a.clock, URLs: mediaSvc, Places: mediaSvc, Stamps: stamps, Blocks: bl,
		Keys: &idempotency.Keeper{Store: gsql.NewIdempotencyKeys(a.db), Clock: a.clock, Log: a.logFor("guides")},
	}, guides.Config{CursorKey: guides.CursorKey(a.cfg.JWTSecret)})
}

// guideStore is the PostgreSQL store, behind the nearby/viewport cache
// unless GUIDES_CACHE=off, with likes group-committed. The returned stop
// ends the cache's version feed and the like committers, and waits for
// them; the HTTP server has stopped by then, so every like was answered.
func (a *app) guideStore(ctx context.Context) (s guides.Store, stop func(), err error) {
	store := gsql.NewGuides(a.db)
	if err := store.StartLikeBatching(gsql.LikeBatchOptions{Registerer: a.registry}); err != nil {
		return nil, nil, fmt.Errorf("like batching: %w", err)
	}
	g := a.cfg.Guides
	if !g.Cache {
		return store, store.StopLikeBatching, nil
	}
	c := cache.New(cache.Deps{Store: store, Source: store, Redis: a.redis, Registerer: a.registry, Log: a.logFor("cache")}, a.cacheConfig())
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(cctx) })
	a.awaitSync(ctx, c)
	return c, func() { cancel(); wg.Wait(); store.StopLikeBatching() }, nil
}

// cacheConfig is the cache's part of the configuration; what config does
// not set takes the cache's defaults.
func (a *app) cacheConfig() cache.Config {
	g := a.cfg.Guides
	return cache.Config{LikePoll: g.LikePoll, RefreshAfter: g.RefreshAfter, MaxAge: g.MaxAge, RedisTimeout: g.RedisTimeout,
		L1Bytes: g.L1Bytes, MaxTileGuides: g.MaxTileGuides, FillOnMiss: g.FillOnMiss, FillDuty: g.FillDuty, FillAllowance: g.FillAllowance}
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
// policy and the log-in limits from config.
func (a *app) authService(users *gsql.Users, limiter auth.Limiter) *auth.Service {
	return auth.New(auth.Deps{Store: users, Tokens: auth.NewTokens(a.cfg.JWTSecret, a.cfg.TokenTTL, a.clock), Clock: a.clock, Limiter: limiter},
		authConfig(a.cfg))
}

// authConfig is the session policy and the log-in limits.
func authConfig(cfg config.Config) auth.Config {
	c, lim := cfg.Sessions, cfg.Limits
	return auth.Config{
		Sessions: auth.SessionPolicy{TTL: cfg.RefreshTTL, MaxAge: c.MaxAge, Grace: c.Grace},
		Login: auth.LoginLimits{PerAddr: lim.LoginIP, PerEmail: lim.LoginEmail, InFlightPerAddr: lim.LoginsPerAddr,
			PerRefreshToken: lim.RefreshToken},
	}
}

// signupService is the account service on db alone, for the seed command's
// demo user: no limiter, so no log-in limits count.
func signupService(db *gsql.DB, cfg config.Config) *auth.Service {
	clock := guidepost.SystemClock{}
	return auth.New(auth.Deps{Store: gsql.NewUsers(db), Tokens: auth.NewTokens(cfg.JWTSecret, cfg.TokenTTL, clock), Clock: clock},
		authConfig(cfg))
}

// sessionSweeper keeps the session tables bounded; a used refresh token is
// kept at least through its grace.
func (a *app) sessionSweeper() *auth.Sweeper {
	c := a.cfg.Sessions
	return auth.NewSweeper(auth.SweeperDeps{Store: gsql.NewUsers(a.db), Clock: a.clock},
		auth.SweeperConfig{UsedRetention: max(c.UsedRetention, c.Grace), GuestIdle: c.GuestIdle})
}
