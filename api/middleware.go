package api

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// front is the first step of every request, the work each needs once:
// counted while its handler runs (inflight), its state (request: an id,
// the logger fail reaches), its duration (httpMetrics) and its access
// line (logAccess). One step, not five: each step is a frame and a defer
// in gin's walk, paid by every hot answer. recoverPanics stays the last
// step, so a panic never unwinds past the metrics and the access line.
func (s *Server) front(metrics *httpMetrics) gin.HandlerFunc {
	log := s.deps.Log
	lines := newAccessLines(log)
	return func(c *gin.Context) {
		s.handlers.enter()
		defer s.handlers.leave()
		start := time.Now()
		r := newRequest(c.Request.Context(), requestIDOf(c), log)
		c.Request = c.Request.WithContext(r)
		c.Writer.Header()["X-Request-Id"] = r.idHeader[:] // canonical already: Set would copy the key
		c.Next()
		end := time.Now() // one reading for the duration and the access line's time
		took := end.Sub(start)
		metrics.observe(c, took)
		logAccess(r, c, end, took, lines)
	}
}

// headerValue is h.Get for a key written in canonical form: Get would
// canonicalise it again on every request.
func headerValue(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// requestIDOf reuses a sane X-Request-ID from the caller (a proxy or the
// app) so one id follows a request across systems, else makes one. The id
// rides in the request's context, so services' log lines carry it too.
func requestIDOf(c *gin.Context) string {
	if id := headerValue(c.Request.Header, "X-Request-Id"); validRequestID(id) {
		return id
	}
	return newRequestID()
}

// newRequestID is 96 random bits in hex. An id needs to be unique, not
// secret: the runtime's per-thread ChaCha8 gives them without the system
// call crypto/rand makes on older kernels.
func newRequestID() string {
	var raw [12]byte
	var id [24]byte
	binary.BigEndian.PutUint64(raw[:8], rand.Uint64())
	binary.BigEndian.PutUint32(raw[8:], rand.Uint32())
	hex.Encode(id[:], raw[:])
	return string(id[:])
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if r < '!' || r > '~' {
			return false
		}
	}
	return true
}

// recoverPanics turns a panic into a logged 500 instead of a dropped
// connection; the server keeps serving.
func recoverPanics(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			fail(c, fmt.Errorf("panic: %v", r))
		}
	}()
	c.Next()
}

// logAccess writes one structured line per request; log's handler adds
// the request id from the context. The fields ride as one group without a
// name, which handlers write inline, as if each were the record's own: a
// record keeps five attributes in place and allocates for more. A logger that writes lines from a
// template (guidepost.NewLogHandler's, main's) writes it, the same bytes
// for a fraction of slog's work; else the record goes to the handler as
// Logger.LogAttrs would hand it, less the caller's program counter: its
// stack walk cost each hot answer a tenth of the line, for a source
// position main's handlers never print (no AddSource).
func logAccess(r *request, c *gin.Context, end time.Time, took time.Duration, lines accessLines) {
	level := slog.LevelInfo
	if c.Writer.Status() >= 500 {
		level = slog.LevelWarn
	}
	ctx := c.Request.Context()
	if !r.log.Enabled(ctx, level) {
		return // before its attributes cost anything
	}
	access := accessAttrs(c.Request.Method, c.FullPath(), c.Request.URL.Path, c.Writer.Status(), c.Writer.Size(),
		took, auth.UserID(ctx))
	if line := lines.at(level); line != nil && line.Write(end, access[:], r.id) {
		return
	}
	group := new([7]slog.Attr) // the record keeps the group's attributes: they leave the stack
	*group = access
	rec := slog.NewRecord(end, level, "request", 0)
	rec.AddAttrs(slog.Attr{Value: slog.GroupValue(group[:]...)})
	_ = r.log.Handler().Handle(ctx, rec) // as with LogAttrs, a line that cannot be written is dropped
}

func accessAttrs(method, route, path string, status, bytes int, took time.Duration, userID string) [7]slog.Attr {
	return [...]slog.Attr{
		slog.String("method", method),
		slog.String("route", route),
		slog.String("path", path),
		slog.Int("status", status),
		slog.Int("bytes", bytes),
		slog.Duration("took", took),
		slog.String("user_id", userID),
	}
}

// accessLines are the access line's templates, when the logger makes
// them (guidepost.LineWriter); a nil one leaves the line to slog.
type accessLines struct{ info, warn *guidepost.Line }

func newAccessLines(log *slog.Logger) accessLines {
	lw, ok := log.Handler().(guidepost.LineWriter)
	if !ok {
		return accessLines{}
	}
	shape := accessAttrs("", "", "", 0, 0, 0, "")
	return accessLines{info: lw.Line(slog.LevelInfo, "request", shape[:]), warn: lw.Line(slog.LevelWarn, "request", shape[:])}
}

func (l accessLines) at(level slog.Level) *guidepost.Line {
	if level == slog.LevelWarn {
		return l.warn
	}
	return l.info
}

// httpMetrics records request durations labelled by route template, never
// the raw path, so ids do not explode the label set; a path no route
// matches is "unmatched" and an unknown method "other".
type httpMetrics struct {
	duration *prometheus.HistogramVec
	// observers keeps each label set's histogram (a metricKey), so a
	// request pays a map read instead of hashing its labels; the keys are
	// bounded as the labels are.
	observers sync.Map
}

type metricKey struct {
	method, route string
	status        int
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "guidepost_http_request_duration_seconds",
		Help:    "HTTP request latency by method, route template and status.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"method", "route", "status"})}
	reg.MustRegister(m.duration)
	return m
}

func (m *httpMetrics) observe(c *gin.Context, took time.Duration) {
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	k := metricKey{methodLabel(c.Request.Method), route, c.Writer.Status()}
	o, ok := m.observers.Load(k)
	if !ok {
		o, _ = m.observers.LoadOrStore(k, m.duration.WithLabelValues(k.method, k.route, strconv.Itoa(k.status)))
	}
	o.(prometheus.Observer).Observe(took.Seconds())
}

// methodLabel keeps the method label bounded: any client can send any
// token as a method, before authentication, and each would be a new series.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// strictQuery refuses a query string that does not parse, naming the
// parameter, instead of dropping the pair as url.ParseQuery does: a client
// whose cursor was mangled must learn it, not get page one again. Values
// must be valid UTF-8, since every one may reach PostgreSQL.
func strictQuery(c *gin.Context) {
	if queryOK(c) {
		c.Next()
	}
}

// queryOK is strictQuery's check; false when the request was answered.
func queryOK(c *gin.Context) bool {
	if plainQuery(c.Request.URL.RawQuery) {
		return true // nothing to unescape, and ASCII
	}
	for pair := range strings.SplitSeq(c.Request.URL.RawQuery, "&") {
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, kerr := url.QueryUnescape(rawKey)
		if kerr != nil || !utf8.ValidString(key) {
			key = rawKey
		}
		value, verr := url.QueryUnescape(rawValue)
		switch {
		case kerr != nil || verr != nil || strings.Contains(pair, ";"):
			fail(c, guidepost.Invalid(guidepost.Field(printable(key), guidepost.FINVALIDFORMAT, "is not a valid URL-encoded query parameter")))
			return false
		case !utf8.ValidString(key) || !utf8.ValidString(value):
			fail(c, guidepost.Invalid(guidepost.Field(printable(key), guidepost.FINVALIDCHARS, "must be valid UTF-8")))
			return false
		}
	}
	return true
}

// plainQuery: q reads as it is written, pairs of ASCII with no escape
// ('%', '+') and no ';' in them: each pair is valid, and its name and
// value are its bytes. A map read's query is so, and skips unescaping.
func plainQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		if b := q[i]; b == '%' || b == '+' || b == ';' || b >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// printable makes a client's parameter name safe to echo in a problem.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > 64 {
		s = s[:64]
	}
	return strings.Map(func(r rune) rune {
		if guidepost.TextProblem(string(r), false) != "" {
			return '?'
		}
		return r
	}, s)
}

// authMode is how the /v1 step checks a bearer token; the routes declare
// it (Server.v1).
type authMode int

const (
	// authSession checks the token and reads its session live: a token of
	// a session signed out is refused.
	authSession authMode = iota
	// authToken checks the token's signature and expiry alone, for a route
	// whose one effect is a write that checks the session live in its own
	// statement (a like: see guides.Liker). A like storm then makes one
	// round trip to PostgreSQL per like, its group commit, instead of a
	// session check and then the commit, and a session revoked before the
	// like is still refused by the write.
	authToken
)

// authenticate reads a bearer token when one is sent; false when the
// request was answered. A bad token is always 401, even on public routes:
// silently treating it as anonymous would hide a client bug. The routes
// that get a session (credentialRoutes) ignore the header: a client
// refreshing because its token expired sends that token along, and
// answering it token_expired would loop.
func (s *Server) authenticate(c *gin.Context, mode authMode) bool {
	h := headerValue(c.Request.Header, "Authorization")
	if h == "" || credentialRoutes[c.FullPath()] {
		return true
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		s.unauthorized(c, guidepost.Errorf(guidepost.EUNAUTHORIZED, "the Authorization header must be 'Bearer <token>'"))
		return false
	}
	var caller auth.Caller
	var err error
	if mode == authToken {
		caller, err = s.deps.Auth.VerifyToken(strings.TrimSpace(token))
	} else {
		caller, err = s.deps.Auth.Authenticate(c.Request.Context(), strings.TrimSpace(token))
	}
	if err != nil {
		s.unauthorized(c, err)
		return false
	}
	ctx := auth.NewContext(c.Request.Context(), caller)
	if s.deps.Marks != nil {
		ctx = s.deps.Marks.Follow(ctx, caller.UserID)
	}
	c.Request = c.Request.WithContext(ctx)
	// An answer to a signed-in caller is theirs: no shared cache keeps it,
	// whatever the route forgets to say (routes may say more: no-store).
	c.Header("Cache-Control", "private")
	return true
}

// requireUser guards routes that need an account.
func (s *Server) requireUser(c *gin.Context) {
	if auth.UserID(c.Request.Context()) == "" {
		s.unauthorized(c, guidepost.Errorf(guidepost.EUNAUTHORIZED, "this route needs a bearer token"))
		return
	}
	c.Next()
}

// credentialRoutes open a session from credentials sent in the body (or
// none, for a guest); a bearer token sent to them is not read.
var credentialRoutes = map[string]bool{
	"/v1/auth/guest": true, "/v1/auth/signup": true, "/v1/auth/login": true, "/v1/auth/refresh": true,
}

func (s *Server) unauthorized(c *gin.Context, err error) {
	challenge := `Bearer realm="guidepost"`
	if strings.HasPrefix(c.GetHeader("Authorization"), "Bearer ") && !credentialRoutes[c.FullPath()] {
		// RFC 6750: a token was presented and refused, expired or not; the
		// problem type tells the two apart.
		challenge += `, error="invalid_token"`
	}
	c.Header("WWW-Authenticate", challenge)
	fail(c, err)
}
