// Package api is guidepost's HTTP surface and the only package that imports
// gin. Handlers decode, call a service with the request's context, and
// encode; every error leaves through one problem+json table.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// Deps is what the API needs; main wires it. Every route is registered
// whatever is set, so the contract test sees the whole surface.
type Deps struct {
	Log      *slog.Logger // nil discards; lines logged with a request's context carry its request_id
	Registry *prometheus.Registry
	Auth     *auth.Service
	Accounts AccountService // DELETE /v1/me; nil answers 503
	Media    MediaService
	Direct   UploadService // direct uploads to S3
	Guides   GuideService
	Blocks   BlockService // /v1/me/blocks; nil answers 503
	Checks   []Check
	Clock    guidepost.Clock
	// Limiter counts requests against Config.Rates, shared by every API
	// process; nil limits nothing.
	Limiter Limiter
	// Events serve GET /v1/events (api/events.go).
	Events EventStreams
	// Marks make a signed-in client's reads see its own writes when reads
	// may go to replicas; nil: every read is on the primary anyway.
	Marks ReadMarks
	// Moderation serves reports and the moderation routes; nil answers 503.
	Moderation ModerationService
}

// Config is how the API serves; DefaultConfig has every default, and New
// fills a zero field from it (but the rates: a zero Rate limits nothing).
type Config struct {
	// MetricsElsewhere leaves /metrics off this router: main serves it on
	// an internal address (METRICS_ADDR) instead.
	MetricsElsewhere bool
	// MaxInflight bounds requests served at once (HTTP_MAX_INFLIGHT);
	// beyond it a request queues unless its predicted wait passes
	// QueueWait, and is shed with 503 if it waits that long after all
	// (shed.go).
	MaxInflight int
	QueueWait   time.Duration
	// RequestTimeout is a /v1 request's deadline; an upload gets it on top
	// of its body time. Work cut by it answers 503.
	RequestTimeout time.Duration
	// Uploads bounds upload requests in a pool of their own: their bodies
	// never hold the MaxInflight slots.
	Uploads UploadLimits
	// Bodies bound every other body, read whole before the request is
	// admitted, so a slow one holds no MaxInflight slot (bodies.go).
	Bodies BodyLimits
	Rates  Rates
	// TrustedProxies are the addresses or CIDRs whose X-Forwarded-For names
	// the client; from anyone else it is ignored (none: the connection's
	// address is the client's).
	TrustedProxies []string
	// Streams time the open event streams (api/events.go).
	Streams StreamTimings
	// Contact is the published contact GET /v1/about serves
	// (MODERATION_CONTACT).
	Contact string
	// CORS lets web pages on other origins call the API (api/cors.go).
	CORS CORS
}

// DefaultConfig is the API's configuration with every default: the
// numbers config.Parse starts from.
func DefaultConfig() Config {
	hour := time.Hour
	return Config{
		MaxInflight:    256,
		QueueWait:      time.Second,
		RequestTimeout: 10 * time.Second,
		Uploads:        UploadLimits{Slots: 64, PerUser: 4, PerAddr: 16, MinRate: 32 << 10, Grace: 10 * time.Second},
		Bodies:         BodyLimits{PerAddr: 16, MinRate: 8 << 10, Grace: 5 * time.Second},
		Streams:        StreamTimings{Heartbeat: 15 * time.Second, Recheck: time.Minute},
		Rates: Rates{
			Signup:         guidepost.Rate{Name: "signup", Count: 10, Period: hour},
			Guest:          guidepost.Rate{Name: "guest", Count: 300, Period: hour},
			GuideWrite:     guidepost.Rate{Name: "guide_write", Count: 120, Period: hour},
			GuideRefusals:  guidepost.Rate{Name: "guide_refusals", Count: 1200, Period: hour},
			UploadRefusals: guidepost.Rate{Name: "upload_refusals", Count: 1200, Period: hour},
			Like:           guidepost.Rate{Name: "like", Count: 600, Period: hour},
			Rename:         guidepost.Rate{Name: "rename", Count: 10, Period: 24 * hour},
			Report:         guidepost.Rate{Name: "report", Count: 30, Period: hour},
			Refresh:        guidepost.Rate{Name: "refresh_ip", Count: 1200, Period: time.Minute},
			Block:          guidepost.Rate{Name: "block", Count: 300, Period: hour},
		},
	}
}

// withDefaults fills every zero field from DefaultConfig but the rates.
func (c Config) withDefaults() Config {
	def := DefaultConfig()
	guidepost.Default(&c.MaxInflight, def.MaxInflight)
	guidepost.Default(&c.QueueWait, def.QueueWait)
	guidepost.Default(&c.RequestTimeout, def.RequestTimeout)
	c.Uploads = c.Uploads.withDefaults(def.Uploads)
	c.Bodies = c.Bodies.withDefaults(def.Bodies)
	guidepost.Default(&c.Streams.Heartbeat, def.Streams.Heartbeat)
	guidepost.Default(&c.Streams.Recheck, def.Streams.Recheck)
	return c
}

// ReadMarks follow, per user and across API processes, how far the
// database had written after the user's last write; *readmarks.Redis
// implements it.
type ReadMarks interface {
	// Follow returns ctx carrying userID's mark, raised by its writes.
	Follow(ctx context.Context, userID string) context.Context
}

// Server routes HTTP requests to the services.
type Server struct {
	deps     Deps
	cfg      Config
	engine   *gin.Engine
	draining atomic.Bool
	shed     *shedder
	ready    *readiness
	handlers inflight
	uploads  *uploadGate
	bodies   *bodyGate
	answers  *answerMemo
	tiles    *answerMemo
	clusters *clusterMemo

	streamEnd  streamEnd
	eventsSent *prometheus.CounterVec
	corsPolicy corsPolicy
}

// New builds the router and registers HTTP metrics on deps.Registry.
func New(deps Deps, cfg Config) *Server {
	deps, cfg = deps.withDefaults(), cfg.withDefaults()
	gin.SetMode(gin.ReleaseMode)
	s := &Server{deps: deps, cfg: cfg, engine: gin.New(), corsPolicy: newCORSPolicy(cfg.CORS)}
	s.shed = newShedder(cfg.MaxInflight, cfg.QueueWait, deps.Registry)
	s.ready = newReadiness(deps)
	s.uploads = newUploadGate(cfg.Uploads, deps.Registry)
	s.bodies = newBodyGate(cfg.Bodies, deps.Registry)
	s.answers = newAnswerMemo(deps.Registry)
	s.tiles, s.clusters = s.answers.forTiles(), s.answers.forClusters()
	s.streamEnd.c, s.eventsSent = make(chan struct{}), newEventMetrics(deps.Registry)
	metrics := newHTTPMetrics(deps.Registry)
	e := s.engine
	// gin trusts every proxy unless told otherwise; then any client could
	// pick the address its rate limits count under.
	if err := e.SetTrustedProxies(cfg.TrustedProxies); err != nil {
		deps.Log.Error("api: bad trusted proxies; trusting none", "err", err)
		e.SetTrustedProxies(nil)
	}
	e.HandleMethodNotAllowed = true
	e.Use(s.front(metrics), s.cors, compressAnswers, recoverPanics)
	e.NoRoute(func(c *gin.Context) {
		fail(c, guidepost.Errorf(guidepost.ENOTFOUND, "no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		fail(c, guidepost.Errorf(codeMethodNotAllowed, "method %s is not allowed here", c.Request.Method))
	})
	s.routes()
	return s
}

func (d Deps) withDefaults() Deps {
	d.Log = guidepost.Logger(d.Log)
	if d.Clock == nil {
		d.Clock = guidepost.SystemClock{}
	}
	return d
}

func (s *Server) routes() {
	e := s.engine
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	if !s.cfg.MetricsElsewhere {
		e.GET("/metrics", gin.WrapH(promhttp.HandlerFor(s.deps.Registry, promhttp.HandlerOpts{})))
	}
	e.GET("/openapi.yaml", serveOpenAPI)
	s.mapRoutes()
	e.GET("/problems", serveProblems)
	e.GET("/problems/:type", serveProblemType)

	v1 := s.v1(authSession)
	s.authRoutes(v1)
	s.mediaRoutes(v1)
	s.uploadRoutes(v1)
	s.guideRoutes(v1)
	s.tileRoutes(v1)
	s.meRoutes(v1)
	s.blockRoutes(v1)
	s.eventRoutes(v1)
	s.moderationRoutes(v1)
	v1.GET("/about", s.about)
}

// v1 is the /v1 group whose routes check a bearer token as mode says.
func (s *Server) v1(mode authMode) *gin.RouterGroup { return s.engine.Group("/v1", s.enter(mode)) }

// enter is every /v1 request's way in, in order: a query that parses
// (strictQuery), its body received (bodyGate), a slot (shedder; an upload
// has its own pool, uploadGate, after it is authenticated, and an event
// stream goes through: the hub caps streams), its deadline and its caller
// (authenticate). One step, not five: each step is a frame and a defer in
// gin's walk, and the shedder's slot and the deadline live in the request
// (request.go), not in gin's keys and a context each.
//
// The deadline bounds the work a request can cause, so that a stuck
// dependency frees the request's slot and connection instead of holding
// them; an upload gets it on top of its body time, and an event stream has
// none (it bounds each of its reads itself).
func (s *Server) enter(mode authMode) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !queryOK(c) || !s.bodies.receive(c) {
			return
		}
		if c.FullPath() != streamsRoute {
			r, d := requestOf(c), s.cfg.RequestTimeout
			if isUpload(c) {
				d += uploadBodyTime
			} else if !s.shed.acquire(c, &r.slot) {
				return
			}
			r.setDeadline(r.slot.since().Add(d))
			defer r.leave()
		}
		if s.authenticate(c, mode) {
			c.Next()
		}
	}
}

// Handler is the root http.Handler.
func (s *Server) Handler() http.Handler { return s.engine }

// Drain makes /readyz fail so load balancers stop sending new work while
// in-flight requests finish.
func (s *Server) Drain() { s.draining.Store(true) }

// WaitHandlers returns once every handler has returned (after the HTTP
// server's Shutdown or Close), or with ctx's error; it reports how many
// were running when it was called, for the log.
func (s *Server) WaitHandlers(ctx context.Context) (running int, err error) {
	return s.handlers.running(), s.handlers.wait(ctx)
}

// Routes lists "METHOD /path" for every registered route; the openapi test
// compares it with the document.
func (s *Server) Routes() []gin.RouteInfo { return s.engine.Routes() }
