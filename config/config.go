// Package config reads guidepost's typed configuration from the environment.
// Every setting has a default that works against the local stack
// (scripts/stack.sh), so `guidepost dev` needs no setup. README.md's
// Configuration table lists every variable; a test holds the two together.
package config

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/blocks"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/events"
	"github.com/guidepost/guidepost/events/redisevents"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/moderation"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

// DevJWTSecret is the built-in secret for local use, taken only when
// GUIDEPOST_ENV=development is set; any other environment needs its own.
const DevJWTSecret = "guidepost-development-secret-do-not-use-in-production"

// Config is the whole configuration; main builds it once and injects parts.
type Config struct {
	Env               string // GUIDEPOST_ENV: production (the default) | development
	HTTPAddr          string
	DatabaseURL       string
	RedisURL          string
	S3Endpoint        string
	S3PublicEndpoint  string   // S3_PUBLIC_ENDPOINT: the host presigned URLs name (default S3_ENDPOINT)
	CORSOrigins       []string // CORS_ALLOWED_ORIGINS: web origins that may call the API; "*" for anonymous reads from any
	S3Region          string
	S3Bucket          string
	S3AccessKey       string
	S3SecretKey       string
	JWTSecret         string
	TokenTTL          time.Duration
	RefreshTTL        time.Duration
	WorkerConcurrency int
	WorkerMetricsAddr string // WORKER_METRICS_ADDR: where `guidepost worker` serves /metrics; "" is off
	LogFormat         string // text | json
	LogLevel          slog.Level
	ShutdownTimeout   time.Duration
	MaxInflight       int
	QueueWait         time.Duration // HTTP_QUEUE_WAIT: the longest wait for a slot before 503 (api/shed.go)
	DrainDelay        time.Duration
	RequestTimeout    time.Duration // HTTP_REQUEST_TIMEOUT: a request's deadline, past its body
	StatementTimeout  time.Duration // DB_STATEMENT_TIMEOUT: PostgreSQL cancels a longer statement
	Replicas          Replicas      // DATABASE_REPLICA_*: streaming replicas that map, guide and photo reads may use
	MetricsAddr       string        // METRICS_ADDR: where the API serves /metrics (internal); MetricsPublic: on HTTP_ADDR
	Media             Media
	Guides            Guides
	Limits            Limits
	Events            Events
	Sessions          Sessions
	Moderation        Moderation
}

// Moderation configures reports and the automatic hold.
type Moderation struct {
	AutoHideReports int    // MODERATION_AUTO_HIDE_REPORTS: distinct established reporters that hide a target until a moderator looks; 0 never
	Contact         string // MODERATION_CONTACT: the published contact GET /v1/about serves (an email address or a URL)
}

// Sessions tunes session lifetimes and what the sweeper keeps (REFRESH_TTL
// stays at the top level, where it always was).
type Sessions struct {
	Grace         time.Duration // REFRESH_GRACE: a used refresh token presented again within it is a retry
	MaxAge        time.Duration // SESSION_MAX_AGE: a session ends this long after it began, however used
	UsedRetention time.Duration // REFRESH_USED_RETENTION: how long a used refresh token is kept to detect its reuse
	GuestIdle     time.Duration // GUEST_IDLE_TTL: a guest unused this long that owns nothing is removed
}

// Events bounds GET /v1/events: streams per account and per process, and
// how long a reconnecting client can resume from its last event.
type Events struct {
	PerUser      int           // EVENTS_MAX_PER_USER: one account's streams open at once (per API process)
	MaxStreams   int           // EVENTS_MAX_STREAMS: streams one API process holds
	ResumeWindow time.Duration // EVENTS_RESUME_WINDOW: how long an event stays in its user's log
}

// Media configures photo uploads and the sweeper; the defaults suit
// production, tests shorten the ages.
type Media struct {
	MaxUploadBytes int64  // MAX_UPLOAD_BYTES
	PublicBase     string // MEDIA_PUBLIC_BASE_URL: plain URLs instead of presigned ones
	// Formats (MEDIA_FORMATS, "jpeg,webp"): the encodings every derivative
	// is rendered in; jpeg is required.
	Formats        []photo.Encoding
	SweepInterval  time.Duration // MEDIA_SWEEP_INTERVAL: how often a worker tries to sweep
	PendingAge     time.Duration // MEDIA_PENDING_AGE: unfinished this long → checked for a live task
	OrphanAge      time.Duration // MEDIA_ORPHAN_AGE: an original with no row this old is deleted
	UploadTTL      time.Duration // UPLOAD_TTL: a direct upload not completed by then is aborted
	UploadURLTTL   time.Duration // UPLOAD_URL_TTL: lifetime of a presigned part URL
	UploadMaxOpen  int           // UPLOAD_MAX_OPEN: direct uploads open at once per account
	UploadDayBytes int64         // UPLOAD_DAILY_BYTES: bytes an account may declare per 24 h
}

// Guides configures the nearby/viewport cache.
type Guides struct {
	Cache         bool          // GUIDES_CACHE: off answers every query from PostgreSQL
	LikePoll      time.Duration // GUIDES_CACHE_LIKE_POLL: lists lag likes by about this
	RefreshAfter  time.Duration // GUIDES_CACHE_REFRESH: an older tile is refreshed in the background, a backstop
	MaxAge        time.Duration // GUIDES_CACHE_MAX_AGE: never serve a tile older than this, a backstop
	RedisTimeout  time.Duration // GUIDES_CACHE_REDIS_TIMEOUT: then PostgreSQL answers instead
	L1Bytes       uint64        // GUIDES_CACHE_L1_MB, in bytes: the in-process tier's size
	MaxTileGuides int           // GUIDES_CACHE_MAX_TILE_GUIDES: a denser tile is cached in parts
	FillOnMiss    int           // GUIDES_CACHE_FILL_ON_MISS: 2 loads a tile on its second miss, 1 on its first, auto (0) on its second once L1 is full
	FillDuty      float64       // GUIDES_CACHE_FILL_DUTY: the share of its time the tile loader loads
	FillAllowance float64       // GUIDES_CACHE_FILL_ALLOWANCE: the share it may load beyond what answers from memory saved
}

// fillOnMiss is GUIDES_CACHE_FILL_ON_MISS's values as cache.Config has them.
var fillOnMiss = map[string]int{"auto": cache.FillOnMissAuto, "1": 1, "2": 2}

// Limits keep one hostile or unlucky client from stalling the API: upload
// bodies have their own pool and a minimum rate, rates are limited per
// address and per account (shared by every API process through Redis),
// and each account has a storage quota.
type Limits struct {
	// TrustedProxies (HTTP_TRUSTED_PROXIES) are the addresses or CIDRs whose
	// X-Forwarded-For is believed; from anyone else it would let a client
	// pick the address its limits are counted under.
	TrustedProxies []string
	UploadSlots    int            // UPLOAD_MAX_INFLIGHT: upload bodies received at once
	UploadsPerUser int            // UPLOAD_MAX_PER_USER: one account's uploads at once
	UploadsPerAddr int            // UPLOAD_MAX_PER_IP: one client address's uploads at once
	UploadMinRate  int64          // UPLOAD_MIN_RATE: bytes/s a body must keep up after the grace
	UploadGrace    time.Duration  // UPLOAD_MIN_RATE_GRACE
	BodiesPerAddr  int            // BODY_MAX_PER_IP: other bodies one client address may be sending at once
	BodyMinRate    int64          // BODY_MIN_RATE: bytes/s such a body must keep up after the grace
	BodyGrace      time.Duration  // BODY_MIN_RATE_GRACE
	Signup         guidepost.Rate // RATE_SIGNUP_PER_IP
	Guest          guidepost.Rate // RATE_GUEST_PER_IP
	LoginIP        guidepost.Rate // RATE_LOGIN_FAILURES_PER_IP
	LoginEmail     guidepost.Rate // RATE_LOGIN_FAILURES_PER_EMAIL
	RefreshToken   guidepost.Rate // RATE_REFRESH_PER_TOKEN
	LoginsPerAddr  int            // LOGIN_MAX_INFLIGHT_PER_IP: one address's log-ins checked at once
	Upload         guidepost.Rate // RATE_UPLOADS_PER_USER
	GuideWrite     guidepost.Rate // RATE_GUIDE_WRITES_PER_USER
	GuideRefusals  guidepost.Rate // RATE_GUIDE_REFUSALS_PER_USER
	UploadRefusals guidepost.Rate // RATE_UPLOAD_REFUSALS_PER_USER
	Like           guidepost.Rate // RATE_LIKES_PER_USER
	Rename         guidepost.Rate // RATE_RENAMES_PER_USER
	Report         guidepost.Rate // RATE_REPORTS_PER_USER
	RefreshIP      guidepost.Rate // RATE_REFRESH_PER_IP
	QuotaPhotos    int64          // QUOTA_PHOTOS: photos one account may store
	QuotaBytes     int64          // QUOTA_BYTES: bytes of originals one account may store
	Block          guidepost.Rate // RATE_BLOCKS_PER_USER: blocks and unblocks
	BlocksMax      int            // BLOCKS_MAX: users one account may block
}

// MetricsPublic, as METRICS_ADDR, serves the API's /metrics on HTTP_ADDR
// beside the API: anyone who reaches the API then reads its metrics, so it
// is asked for by name, never a default.
const MetricsPublic = "public"

// Replicas are PostgreSQL streaming replicas for map, guide and photo
// reads (sql.ReplicaConfig).
type Replicas struct {
	URLs   []string      // DATABASE_REPLICA_URLS: comma-separated; none: the primary reads
	MaxLag time.Duration // DATABASE_REPLICA_MAX_LAG: a replica further behind leaves the rotation
	Wait   time.Duration // DATABASE_REPLICA_WAIT: how long a read waits for a replica to replay a write it must see
}

// Parse reads every setting through getenv (os.Getenv in main, a map in
// tests) and reports every bad value at once. It starts from each
// package's DefaultConfig, so a default is written once, beside the code
// it tunes, and only what the environment sets is overridden. What belongs
// to no package (addresses, credentials, logging) defaults here.
func Parse(getenv func(string) string) (Config, error) {
	e := env{get: getenv}
	var (
		apiDef    = api.DefaultConfig()
		authDef   = auth.DefaultConfig()
		sweepDef  = auth.DefaultSweeperConfig()
		logDef    = redisevents.DefaultConfig()
		hubDef    = events.DefaultHubConfig()
		modDef    = moderation.DefaultConfig()
		sqlDef    = gsql.DefaultConfig()
		workerDef = worker.DefaultConfig()
	)
	c := Config{
		Env:               e.oneOf("GUIDEPOST_ENV", "production", "development", "production"),
		HTTPAddr:          e.str("HTTP_ADDR", "127.0.0.1:8080"),
		DatabaseURL:       e.str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/guidepost?sslmode=disable"),
		RedisURL:          e.redis("REDIS_URL", "redis://127.0.0.1:6379/0"),
		S3Endpoint:        e.str("S3_ENDPOINT", "http://127.0.0.1:7070"),
		S3Region:          e.str("S3_REGION", "us-east-1"),
		CORSOrigins:       e.origins("CORS_ALLOWED_ORIGINS"),
		S3Bucket:          e.str("S3_BUCKET", "guidepost"),
		S3AccessKey:       e.str("S3_ACCESS_KEY", "guidepost"),
		S3SecretKey:       e.str("S3_SECRET_KEY", "guidepost-secret"),
		JWTSecret:         e.str("JWT_SECRET", ""),
		TokenTTL:          e.duration("TOKEN_TTL", 15*time.Minute, time.Nanosecond),
		RefreshTTL:        e.duration("REFRESH_TTL", authDef.Sessions.TTL, time.Minute),
		WorkerConcurrency: e.integer("WORKER_CONCURRENCY", workerDef.Concurrency, 1),
		WorkerMetricsAddr: e.str("WORKER_METRICS_ADDR", ""),
		LogFormat:         e.oneOf("LOG_FORMAT", "text", "text", "json"),
		LogLevel:          logLevel(e.oneOf("LOG_LEVEL", "info", "debug", "info", "warn", "error")),
		ShutdownTimeout:   e.duration("SHUTDOWN_TIMEOUT", 20*time.Second, time.Nanosecond),
		DrainDelay:        e.duration("SHUTDOWN_DRAIN_DELAY", 0, 0),
		MaxInflight:       e.integer("HTTP_MAX_INFLIGHT", apiDef.MaxInflight, 1),
		QueueWait:         e.duration("HTTP_QUEUE_WAIT", apiDef.QueueWait, time.Nanosecond),
		RequestTimeout:    e.duration("HTTP_REQUEST_TIMEOUT", apiDef.RequestTimeout, time.Nanosecond),
		StatementTimeout:  e.duration("DB_STATEMENT_TIMEOUT", sqlDef.StatementTimeout, time.Millisecond),
		Replicas: Replicas{
			URLs:   e.urls("DATABASE_REPLICA_URLS"),
			MaxLag: e.duration("DATABASE_REPLICA_MAX_LAG", sqlDef.Replicas.MaxLag, 100*time.Millisecond),
			Wait:   e.duration("DATABASE_REPLICA_WAIT", sqlDef.Replicas.Wait, time.Millisecond),
		},
		MetricsAddr: e.str("METRICS_ADDR", "127.0.0.1:9090"),
		Sessions: Sessions{
			Grace:         e.duration("REFRESH_GRACE", authDef.Sessions.Grace, 0),
			MaxAge:        e.duration("SESSION_MAX_AGE", authDef.Sessions.MaxAge, time.Minute),
			UsedRetention: e.duration("REFRESH_USED_RETENTION", sweepDef.UsedRetention, time.Second),
			GuestIdle:     e.duration("GUEST_IDLE_TTL", sweepDef.GuestIdle, time.Hour),
		},
		Media:  parseMedia(&e),
		Guides: parseGuides(&e),
		Limits: parseLimits(&e),
		Moderation: Moderation{
			AutoHideReports: e.integer("MODERATION_AUTO_HIDE_REPORTS", modDef.AutoHideReports, 0),
			Contact:         e.str("MODERATION_CONTACT", ""),
		},
		Events: Events{
			PerUser:      e.integer("EVENTS_MAX_PER_USER", hubDef.PerUser, 1),
			MaxStreams:   e.integer("EVENTS_MAX_STREAMS", hubDef.Max, 1),
			ResumeWindow: e.duration("EVENTS_RESUME_WINDOW", logDef.Window, time.Second),
		},
	}
	c.S3PublicEndpoint = strings.TrimRight(e.str("S3_PUBLIC_ENDPOINT", c.S3Endpoint), "/")
	switch {
	case c.JWTSecret == "" && c.Development():
		c.JWTSecret = DevJWTSecret
	case c.JWTSecret != "" && len(c.JWTSecret) < 32:
		e.fail("JWT_SECRET", "(hidden)", "want at least 32 bytes")
	}
	return c, errors.Join(e.errs...)
}

// parseMedia reads the photo settings, from media's defaults.
func parseMedia(e *env) Media {
	mediaDef := media.DefaultConfig()
	sweeperDef := worker.DefaultSweeperConfig()
	return Media{
		MaxUploadBytes: e.bytes("MAX_UPLOAD_BYTES", mediaDef.MaxBytes),
		PublicBase:     strings.TrimRight(e.str("MEDIA_PUBLIC_BASE_URL", ""), "/"),
		Formats:        e.formats("MEDIA_FORMATS", mediaDef.Formats),
		SweepInterval:  e.duration("MEDIA_SWEEP_INTERVAL", sweeperDef.Interval, time.Nanosecond),
		PendingAge:     e.duration("MEDIA_PENDING_AGE", mediaDef.PendingAge, time.Nanosecond),
		OrphanAge:      e.duration("MEDIA_ORPHAN_AGE", mediaDef.OrphanAge, time.Nanosecond),
		UploadTTL:      e.duration("UPLOAD_TTL", mediaDef.Direct.TTL, time.Second),
		UploadURLTTL:   e.duration("UPLOAD_URL_TTL", mediaDef.Direct.URLTTL, time.Second),
		UploadMaxOpen:  e.integer("UPLOAD_MAX_OPEN", mediaDef.Direct.MaxOpen, 1),
		UploadDayBytes: e.bytes("UPLOAD_DAILY_BYTES", mediaDef.Direct.DayBytes),
	}
}

// parseGuides reads the guide cache's settings, from cache's defaults.
func parseGuides(e *env) Guides {
	cacheDef := cache.DefaultConfig()
	return Guides{
		Cache:         e.boolean("GUIDES_CACHE", true),
		LikePoll:      e.duration("GUIDES_CACHE_LIKE_POLL", cacheDef.LikePoll, time.Nanosecond),
		RefreshAfter:  e.duration("GUIDES_CACHE_REFRESH", cacheDef.RefreshAfter, time.Nanosecond),
		MaxAge:        e.duration("GUIDES_CACHE_MAX_AGE", cacheDef.MaxAge, time.Nanosecond),
		RedisTimeout:  e.duration("GUIDES_CACHE_REDIS_TIMEOUT", cacheDef.RedisTimeout, time.Nanosecond),
		L1Bytes:       uint64(e.integer("GUIDES_CACHE_L1_MB", int(cacheDef.L1Bytes>>20), 1)) << 20,
		MaxTileGuides: e.integer("GUIDES_CACHE_MAX_TILE_GUIDES", cacheDef.MaxTileGuides, 1),
		FillOnMiss:    fillOnMiss[e.oneOf("GUIDES_CACHE_FILL_ON_MISS", "auto", "auto", "1", "2")],
		FillDuty:      e.fraction("GUIDES_CACHE_FILL_DUTY", cacheDef.FillDuty),
		FillAllowance: e.fraction("GUIDES_CACHE_FILL_ALLOWANCE", cacheDef.FillAllowance),
	}
}

// parseLimits reads every per-client limit, from the defaults of the
// packages that enforce them.
func parseLimits(e *env) Limits {
	apiDef, authDef, mediaDef := api.DefaultConfig(), auth.DefaultConfig(), media.DefaultConfig()
	up, body, rates, login := apiDef.Uploads, apiDef.Bodies, apiDef.Rates, authDef.Login
	blocksDef := blocks.DefaultConfig()
	return Limits{
		TrustedProxies: e.addrs("HTTP_TRUSTED_PROXIES"),
		UploadSlots:    e.integer("UPLOAD_MAX_INFLIGHT", up.Slots, 1),
		UploadsPerUser: e.integer("UPLOAD_MAX_PER_USER", up.PerUser, 1),
		UploadsPerAddr: e.integer("UPLOAD_MAX_PER_IP", up.PerAddr, 1),
		UploadMinRate:  e.bytes("UPLOAD_MIN_RATE", up.MinRate),
		UploadGrace:    e.duration("UPLOAD_MIN_RATE_GRACE", up.Grace, time.Nanosecond),
		BodiesPerAddr:  e.integer("BODY_MAX_PER_IP", body.PerAddr, 1),
		BodyMinRate:    e.bytes("BODY_MIN_RATE", body.MinRate),
		BodyGrace:      e.duration("BODY_MIN_RATE_GRACE", body.Grace, time.Nanosecond),
		Signup:         e.rate("RATE_SIGNUP_PER_IP", rates.Signup),
		Guest:          e.rate("RATE_GUEST_PER_IP", rates.Guest),
		LoginIP:        e.rate("RATE_LOGIN_FAILURES_PER_IP", login.PerAddr),
		LoginEmail:     e.rate("RATE_LOGIN_FAILURES_PER_EMAIL", login.PerEmail),
		RefreshToken:   e.rate("RATE_REFRESH_PER_TOKEN", login.PerRefreshToken),
		LoginsPerAddr:  e.integer("LOGIN_MAX_INFLIGHT_PER_IP", login.InFlightPerAddr, 1),
		Upload:         e.rate("RATE_UPLOADS_PER_USER", mediaDef.UploadRate),
		GuideWrite:     e.rate("RATE_GUIDE_WRITES_PER_USER", rates.GuideWrite),
		GuideRefusals:  e.rate("RATE_GUIDE_REFUSALS_PER_USER", rates.GuideRefusals),
		UploadRefusals: e.rate("RATE_UPLOAD_REFUSALS_PER_USER", rates.UploadRefusals),
		Like:           e.rate("RATE_LIKES_PER_USER", rates.Like),
		Rename:         e.rate("RATE_RENAMES_PER_USER", rates.Rename),
		Report:         e.rate("RATE_REPORTS_PER_USER", rates.Report),
		RefreshIP:      e.rate("RATE_REFRESH_PER_IP", rates.Refresh),
		QuotaPhotos:    int64(e.integer("QUOTA_PHOTOS", int(mediaDef.QuotaPhotos), 1)),
		QuotaBytes:     e.bytes("QUOTA_BYTES", mediaDef.QuotaBytes),
		Block:          e.rate("RATE_BLOCKS_PER_USER", rates.Block),
		BlocksMax:      e.integer("BLOCKS_MAX", blocksDef.Max, 1),
	}
}

func logLevel(name string) slog.Level {
	var l slog.Level
	l.UnmarshalText([]byte(name)) // oneOf let only slog's own names through
	return l
}

// Development reports whether GUIDEPOST_ENV=development was set: only then
// may the process run on built-in local defaults such as the JWT secret.
func (c Config) Development() bool { return c.Env == "development" }

// CheckServe refuses to run the API or a worker on a secret anyone can read
// in this repository: a plain deployment would let anyone mint a token for
// any user. Local use says GUIDEPOST_ENV=development (make run and
// `guidepost dev` do).
func (c Config) CheckServe() error {
	switch {
	case c.JWTSecret == "":
		return errors.New("config: JWT_SECRET is not set: set a secret of at least 32 bytes, or GUIDEPOST_ENV=development for local use")
	case c.JWTSecret == DevJWTSecret && !c.Development():
		return errors.New("config: JWT_SECRET is the built-in development secret; set a real one outside GUIDEPOST_ENV=development")
	}
	return nil
}
