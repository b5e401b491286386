package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// CORS says which web origins may call the API from a browser
// (CORS_ALLOWED_ORIGINS). Listed origins may send a bearer token; "*"
// opens the anonymous reads to every other origin, never a signed-in
// request: a page on any site could otherwise act with a token it got
// hold of. Empty: no cross-origin access at all.
type CORS struct {
	Origins []string // "https://app.example.com", or "*"
}

// Preflight answers are kept by the browser this long (Chrome caps it at
// 2 h; 10 minutes lets a changed policy reach clients soon).
const corsMaxAge = 10 * 60

// The request headers a client may send, and the answer headers it may
// read. Authorization is offered to the listed origins only.
var (
	corsRequestHeaders = "Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID, X-Request-ID"
	corsExposed        = "ETag, Location, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, X-Request-ID, WWW-Authenticate"
	corsMethods        = "GET, HEAD, POST, PUT, PATCH, DELETE"
)

type corsPolicy struct {
	listed  map[string]bool
	anyRead bool
}

func newCORSPolicy(c CORS) corsPolicy {
	p := corsPolicy{listed: map[string]bool{}}
	for _, o := range c.Origins {
		switch o = strings.TrimRight(strings.TrimSpace(o), "/"); o {
		case "":
		case "*":
			p.anyRead = true
		default:
			p.listed[strings.ToLower(o)] = true
		}
	}
	return p
}

func (p corsPolicy) on() bool { return p.anyRead || len(p.listed) > 0 }

// cors adds the CORS headers to every answer to an origin the policy
// allows, and answers a preflight (OPTIONS) itself. A signed-in request
// from an origin that is not listed gets no CORS headers: the browser
// keeps the answer from the page.
func (s *Server) cors(c *gin.Context) {
	p := s.corsPolicy
	origin := headerValue(c.Request.Header, "Origin")
	if c.Request.Method == http.MethodOptions && strings.HasPrefix(c.Request.URL.Path, "/v1/") {
		s.preflight(c, origin)
		return
	}
	if origin == "" || !p.on() {
		c.Next()
		return
	}
	c.Writer.Header().Add("Vary", "Origin")
	listed := p.listed[strings.ToLower(origin)]
	if listed || p.anyRead && c.GetHeader("Authorization") == "" && c.Query("ticket") == "" {
		allowOrigin(c, origin, listed)
		c.Header("Access-Control-Expose-Headers", corsExposed)
	}
	c.Next()
}

func allowOrigin(c *gin.Context, origin string, listed bool) {
	if listed {
		c.Header("Access-Control-Allow-Origin", origin)
		c.Header("Access-Control-Allow-Credentials", "true")
		return
	}
	c.Header("Access-Control-Allow-Origin", "*")
}

// preflight answers OPTIONS on any /v1 address: 204, with what the origin
// may do. An origin the policy does not allow gets the 204 without CORS
// headers, so the browser refuses the real request.
func (s *Server) preflight(c *gin.Context, origin string) {
	p := s.corsPolicy
	c.Header("Allow", "OPTIONS, "+corsMethods)
	if origin != "" && p.on() {
		c.Writer.Header().Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
		listed := p.listed[strings.ToLower(origin)]
		if listed || p.anyRead {
			allowOrigin(c, origin, listed)
			headers := corsRequestHeaders
			if listed {
				headers = "Authorization, " + headers
			}
			c.Header("Access-Control-Allow-Methods", corsMethods)
			c.Header("Access-Control-Allow-Headers", headers)
			c.Header("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
		}
	}
	c.AbortWithStatus(http.StatusNoContent)
}
