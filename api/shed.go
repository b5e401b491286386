package api

import (
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// shedder sheds by waiting time, not by count. At most limit requests are
// served at once; the rest queue in arrival order (a Go channel serves
// blocked senders first come, first served). A request is answered 503
// with Retry-After at once when the wait it would have is past target, and
// after target if it has waited that long after all; otherwise it waits,
// however many are ahead of it. Cheap requests (a like joins a group
// commit and holds its slot a few milliseconds) drain a long queue fast,
// so a storm of them queues and is served; a server that truly cannot
// keep up sees its predicted wait pass target and refuses at once, which
// keeps the requests it does take fast.
//
// The predicted wait is Little's law: the requests ahead of this one times
// the mean time a request holds a slot, divided by the slots. The mean
// moves with the load (requests that share the CPU hold their slots
// longer), so the prediction measures the server's throughput now.
type shedder struct {
	slots   chan struct{}
	target  time.Duration
	waiting atomic.Int64
	hold    atomic.Int64 // moving mean of a request's slot time, nanoseconds; 0 until one finished

	shed, refusedAtOnce prometheus.Counter
	wait                prometheus.Histogram
}

func newShedder(limit int, target time.Duration, reg prometheus.Registerer) *shedder {
	s := &shedder{slots: make(chan struct{}, limit), target: target}
	s.shed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_http_shed_total", Help: "Requests answered 503 because their wait in the queue would pass the target.",
	})
	s.refusedAtOnce = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_http_shed_predicted_total", Help: "Of the shed requests, those refused on arrival because of their predicted wait.",
	})
	s.wait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "guidepost_http_queue_wait_seconds", Help: "How long requests that queued waited for a slot.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 12),
	})
	busy := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "guidepost_http_inflight", Help: "Requests being served now.",
	}, func() float64 { return float64(len(s.slots)) })
	queued := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "guidepost_http_queued", Help: "Requests waiting for a slot now.",
	}, func() float64 { return float64(s.waiting.Load()) })
	reg.MustRegister(s.shed, s.refusedAtOnce, s.wait, busy, queued)
	return s
}

// handler is the shedder as a step of its own (the /v1 step calls acquire).
func (s *shedder) handler(c *gin.Context) {
	h := &requestOf(c).slot
	if !s.acquire(c, h) {
		return
	}
	defer h.release()
	c.Next()
}

// acquire takes a slot into h, queueing if need be; false when the request
// was answered instead.
func (s *shedder) acquire(c *gin.Context, h *slotHold) bool {
	select {
	case s.slots <- struct{}{}:
	default:
		if !s.queue(c) {
			return false
		}
	}
	*h = slotHold{s: s, start: time.Now(), held: true}
	return true
}

// slotHold is a request's slot, given back once; the request keeps it.
type slotHold struct {
	s     *shedder
	start time.Time
	held  bool
}

// since is when the slot was taken, or now when none is held: the
// request's deadline counts from it, one clock reading for both.
func (h *slotHold) since() time.Time {
	if h.held {
		return h.start
	}
	return time.Now()
}

func (h *slotHold) release() {
	if h.held {
		h.held = false
		<-h.s.slots
		h.s.observe(time.Since(h.start))
	}
}

// releaseSlot gives the request's slot back before the handler returns,
// for a handler about to wait on work that costs this process no CPU (a
// like waiting for its rate limit and its group commit: see freeSlot):
// the slot serves another request meanwhile, as if this one had left the
// queue.
func releaseSlot(c *gin.Context) { requestOf(c).slot.release() }

// freeSlot gives the request's slot back before the handlers after it:
// a route's way of saying that its remaining work waits on Redis and
// PostgreSQL, not on this process's CPU.
func freeSlot(c *gin.Context) {
	releaseSlot(c)
	c.Next()
}

// queue waits for a slot; false when the request was answered instead.
func (s *shedder) queue(c *gin.Context) bool {
	ahead := s.waiting.Add(1) - 1
	defer s.waiting.Add(-1)
	if s.predict(ahead) > s.target {
		s.refusedAtOnce.Inc()
		s.refuse(c)
		return false
	}
	start := time.Now()
	t := time.NewTimer(s.target)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		s.wait.Observe(time.Since(start).Seconds())
		return true
	case <-t.C:
		s.refuse(c)
		return false
	case <-c.Request.Context().Done():
		c.AbortWithStatus(499)
		return false
	}
}

// predict is the wait of a request with ahead requests before it; 0 until
// a request has finished (nothing known: wait and see, up to target).
func (s *shedder) predict(ahead int64) time.Duration {
	return time.Duration((ahead + 1) * s.hold.Load() / int64(cap(s.slots)))
}

// observe folds one slot time into the mean, weighting it 1/16.
func (s *shedder) observe(d time.Duration) {
	for {
		old := s.hold.Load()
		next := int64(d)
		if old > 0 {
			next = old + (int64(d)-old)/16
		}
		if s.hold.CompareAndSwap(old, next) {
			return
		}
	}
}

func (s *shedder) refuse(c *gin.Context) {
	s.shed.Inc()
	fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "the server is busy; retry shortly"))
}
