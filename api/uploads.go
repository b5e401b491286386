package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// UploadLimits bound upload requests apart from the general shedder: a
// body trickling in from a phone on a bad network (or from an attacker)
// may take minutes, and a slot held that long by each of a few hundred
// uploads would leave none for the requests that answer in milliseconds.
type UploadLimits struct {
	Slots   int           // uploads received at once (64); more wait a second, then 503
	PerUser int           // one account's uploads at once (4); more get 429
	PerAddr int           // one client address's uploads at once (16); more get 429
	MinRate int64         // bytes/s a body must average after Grace (32 KiB/s); slower is cut with 408
	Grace   time.Duration // head start before MinRate counts (10 s)
}

func (l UploadLimits) withDefaults(def UploadLimits) UploadLimits {
	guidepost.Default(&l.Slots, def.Slots)
	guidepost.Default(&l.PerUser, def.PerUser)
	guidepost.Default(&l.PerAddr, def.PerAddr)
	guidepost.Default(&l.MinRate, def.MinRate)
	guidepost.Default(&l.Grace, def.Grace)
	return l
}

// uploadQueueWait is how long an upload waits for a slot: longer than the
// shedder's, since an upload is not latency-sensitive and a phone would
// rather wait a second than retry.
const uploadQueueWait = time.Second

// uploadGate admits upload requests: at most PerUser per account and
// PerAddr per client address (guest accounts are cheap to make), at most
// Slots in all. The counts are this process's.
type uploadGate struct {
	lim   UploadLimits
	slots chan struct{}

	inflight guidepost.InFlight // by account, and by address

	refused *prometheus.CounterVec
	slow    prometheus.Counter
}

func newUploadGate(lim UploadLimits, reg prometheus.Registerer) *uploadGate {
	g := &uploadGate{lim: lim, slots: make(chan struct{}, lim.Slots)}
	g.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "guidepost_upload_refused_total",
		Help: "Uploads refused before their body was read: per_account or per_address (429), pool (503).",
	}, []string{"reason"})
	g.slow = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_upload_too_slow_total", Help: "Upload bodies cut with 408 for arriving slower than the minimum rate.",
	})
	inflight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "guidepost_upload_inflight", Help: "Upload requests being served now (outside guidepost_http_inflight).",
	}, func() float64 { return float64(len(g.slots)) })
	reg.MustRegister(g.refused, g.slow, inflight)
	return g
}

func (g *uploadGate) admit(c *gin.Context) {
	keys := append([]guidepost.Cap{{Key: "u:" + auth.UserID(c.Request.Context()), Max: g.lim.PerUser}}, addrCaps(c, "a:", g.lim.PerAddr)...)
	if i := g.inflight.Enter(keys...); i >= 0 {
		who, scope := "account", "account"
		if i > 0 {
			who, scope = "address", keys[i].Scope()
		}
		g.refused.WithLabelValues("per_" + who).Inc()
		c.Header("Connection", "close") // the body stays unread
		fail(c, &guidepost.Error{Code: guidepost.ERATELIMITED,
			Message: fmt.Sprintf("at most %d uploads at once per %s; retry when one has finished", keys[i].Max, scope),
			Limit:   &guidepost.Limit{Name: "concurrent_uploads_per_" + who, Quota: int64(keys[i].Max), RetryAfter: time.Second}})
		return
	}
	defer g.inflight.Leave(keys...)
	select {
	case g.slots <- struct{}{}:
	default:
		t := time.NewTimer(uploadQueueWait)
		defer t.Stop()
		select {
		case g.slots <- struct{}{}:
		case <-t.C:
			g.refused.WithLabelValues("pool").Inc()
			c.Header("Connection", "close") // the body stays unread
			fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "the server is receiving too many uploads; retry shortly"))
			return
		case <-c.Request.Context().Done():
			c.AbortWithStatus(499)
			return
		}
	}
	defer func() { <-g.slots }()
	c.Next()
}

// enter counts one more upload under the account's key (first) and the
// address's, or names which of the two is at its cap.
// errBodyTooSlow cuts a body that fell behind the minimum rate.
var errBodyTooSlow = errors.New("the body arrived slower than the minimum rate")

// minRateBody reads an upload body under a read deadline that moves with
// what has arrived: Grace, plus one second per MinRate bytes received; at
// most Grace after the last bytes arrived; never past the route's ceiling.
// A body that trickles slower than MinRate on average, or stalls for
// Grace, reaches the deadline and is cut; one that keeps up never does.
// (Checking the rate inside Read alone would miss a body that stops
// sending: Read would simply block.)
type minRateBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	start   time.Time
	ceiling time.Time
	rate    int64 // bytes/s
	grace   time.Duration
	n       int64
	slow    prometheus.Counter
}

func (g *uploadGate) minRate(c *gin.Context, ceiling time.Duration) {
	withMinRate(c, g.lim.MinRate, g.lim.Grace, ceiling, g.slow)
}

// withMinRate puts the request's body under a minimum rate (minRateBody);
// slow counts the bodies it cuts.
func withMinRate(c *gin.Context, rate int64, grace, ceiling time.Duration, slow prometheus.Counter) {
	now := time.Now()
	b := &minRateBody{ReadCloser: c.Request.Body, rc: http.NewResponseController(c.Writer),
		start: now, ceiling: now.Add(ceiling), rate: rate, grace: grace, slow: slow}
	b.extend()
	c.Request.Body = b
}

func (b *minRateBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		b.slow.Inc()
		return n, errBodyTooSlow
	}
	if n > 0 && err == nil {
		// Not on the last read: at the body's end net/http has cleared the
		// deadline for its own background read, and a deadline set again
		// would cancel the request Grace later, while it is still handled.
		b.extend()
	}
	return n, err
}

func (b *minRateBody) extend() {
	earned := time.Duration(float64(b.n) / float64(b.rate) * float64(time.Second))
	d := b.start.Add(b.grace + earned)
	if idle := time.Now().Add(b.grace); d.After(idle) {
		d = idle
	}
	if d.After(b.ceiling) {
		d = b.ceiling
	}
	// Only fails for writers without deadline support (test recorders).
	_ = b.rc.SetReadDeadline(d)
}
