package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// BodyLimits bound the receiving of every request body but an upload's
// (which has its own, UploadLimits). A body is read whole before the
// request takes a shedder slot: a client that sends headers and then
// nothing holds a connection and one of its address's PerAddr places, never
// a slot that every other request needs.
type BodyLimits struct {
	PerAddr int           // bodies one address may be sending at once (16: a carrier NAT hides many phones); more get 429
	MinRate int64         // bytes/s a body must average after Grace (8 KiB/s); slower is cut with 408
	Grace   time.Duration // head start before MinRate counts, and the longest pause (5 s)
}

func (l BodyLimits) withDefaults(def BodyLimits) BodyLimits {
	guidepost.Default(&l.PerAddr, def.PerAddr)
	guidepost.Default(&l.MinRate, def.MinRate)
	guidepost.Default(&l.Grace, def.Grace)
	return l
}

// bodyGate receives the small bodies (JSON, at most maxJSONBody) ahead of
// admission, counting them per client address.
type bodyGate struct {
	lim       BodyLimits
	inflight  guidepost.InFlight // by address, and an IPv6 client's wider prefixes
	receiving atomic.Int64

	refused, slow prometheus.Counter
}

func newBodyGate(lim BodyLimits, reg prometheus.Registerer) *bodyGate {
	g := &bodyGate{lim: lim}
	g.refused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_body_refused_total", Help: "Requests answered 429 because their address was already sending BODY_MAX_PER_IP bodies.",
	})
	g.slow = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_body_too_slow_total", Help: "Request bodies (not uploads) cut with 408 for arriving slower than the minimum rate.",
	})
	receiving := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "guidepost_body_receiving", Help: "Request bodies (not uploads) being received now, before admission.",
	}, func() float64 { return float64(g.receiving.Load()) })
	reg.MustRegister(g.refused, g.slow, receiving)
	return g
}

// receive reads a request's body into memory under the minimum rate and
// the JSON body ceiling, then hands it on; an upload's body is left to the
// upload gate, and a request without a body passes at once. False when
// the request was answered instead.
func (g *bodyGate) receive(c *gin.Context) bool {
	r := c.Request
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody || isUpload(c) {
		return true
	}
	keys := addrCaps(c, "a:", g.lim.PerAddr)
	if i := g.inflight.Enter(keys...); i >= 0 {
		g.refused.Inc()
		c.Header("Connection", "close") // the body stays unread
		fail(c, &guidepost.Error{Code: guidepost.ERATELIMITED,
			Message: fmt.Sprintf("at most %d request bodies may arrive at once from one %s; retry when one has arrived", keys[i].Max, keys[i].Scope()),
			Limit:   &guidepost.Limit{Name: "concurrent_bodies_per_address", Quota: int64(keys[i].Max), RetryAfter: time.Second}})
		return false
	}
	g.receiving.Add(1)
	body, err := g.read(c)
	g.receiving.Add(-1)
	g.inflight.Leave(keys...)
	if err != nil {
		fail(c, err)
		return false
	}
	c.Request.Body = body
	return true
}

// read buffers the body. One over maxJSONBody is handed on as its first
// maxJSONBody bytes and then the overflow error, so decodeJSON can still
// name the field that overflowed.
func (g *bodyGate) read(c *gin.Context) (io.ReadCloser, error) {
	withMinRate(c, g.lim.MinRate, g.lim.Grace, jsonBodyTime, g.slow)
	buf, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxJSONBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		c.Header("Connection", "close") // the rest stays unread
		return io.NopCloser(io.MultiReader(bytes.NewReader(buf), errReader{err})), nil
	case errors.Is(err, errBodyTooSlow):
		return nil, guidepost.Errorf(codeBodyTimeout, "the body stalled or arrived slower than the server's minimum rate; send it again")
	case err != nil:
		return nil, errClientGone
	}
	return io.NopCloser(bytes.NewReader(buf)), nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// isUpload is POST /v1/media, whose body the upload gate bounds.
func isUpload(c *gin.Context) bool {
	return c.Request.Method == http.MethodPost && c.FullPath() == "/v1/media"
}
