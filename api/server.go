// Package api is guidepost's HTTP surface and the only package that imports
// gin. Handlers decode, call a service with the request's context, and
// encode; every error leaves through one problem+json table.
package api

import (
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
	Media    MediaService
	Guides   GuideService
	Checks   []Check
	Clock    guidepost.Clock
	// MaxInflight bounds requests served at once (0: 256); beyond it a
	// request queues unless its predicted wait passes QueueWait (0: 1 s),
	// and is shed with 503 if it waits that long after all (shed.go).
	MaxInflight int
	QueueWait   time.Duration
}

// Server routes HTTP requests to the services.
type Server struct {
	deps     Deps
	engine   *gin.Engine
	draining atomic.Bool
	shed     *shedder
}

// New builds the router and registers HTTP metrics on deps.Registry.
func New(deps Deps) *Server {
	deps = deps.withDefaults()
	gin.SetMode(gin.ReleaseMode)
	s := &Server{deps: deps, engine: gin.New()}
	s.shed = newShedder(deps.MaxInflight, deps.QueueWait, deps.Registry)
	metrics := newHTTPMetrics(deps.Registry)
	e := s.engine
	e.HandleMethodNotAllowed = true
	e.Use(withRequestID, withLog(deps.Log), metrics.handler, accessLog(deps.Log), recoverPanics)
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
	if d.MaxInflight <= 0 {
		d.MaxInflight = 256
	}
	if d.QueueWait <= 0 {
		d.QueueWait = time.Second
	}
	return d
}

func (s *Server) routes() {
	e := s.engine
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", gin.WrapH(promhttp.HandlerFor(s.deps.Registry, promhttp.HandlerOpts{})))
	e.GET("/openapi.yaml", serveOpenAPI)

	v1 := e.Group("/v1", s.shed.handler, s.authenticate)
	s.authRoutes(v1)
	s.mediaRoutes(v1)
	s.guideRoutes(v1)
}

// Handler is the root http.Handler.
func (s *Server) Handler() http.Handler { return s.engine }

// Drain makes /readyz fail so load balancers stop sending new work while
// in-flight requests finish.
func (s *Server) Drain() { s.draining.Store(true) }

// Routes lists "METHOD /path" for every registered route; the openapi test
// compares it with the document.
func (s *Server) Routes() []gin.RouteInfo { return s.engine.Routes() }
