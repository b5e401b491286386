package api

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// shedder bounds the requests being served at once. A request that cannot
// start within wait is answered 503 with Retry-After at once: a fresh or
// overloaded server that queues without bound answers everyone late, while
// one that sheds keeps serving most requests fast.
type shedder struct {
	slots chan struct{}
	wait  time.Duration
	shed  prometheus.Counter
	busy  prometheus.GaugeFunc
}

func newShedder(limit int, wait time.Duration, reg prometheus.Registerer) *shedder {
	s := &shedder{slots: make(chan struct{}, limit), wait: wait}
	s.shed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_http_shed_total", Help: "Requests answered 503 because the server was at its concurrency limit.",
	})
	s.busy = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "guidepost_http_inflight", Help: "Requests being served now.",
	}, func() float64 { return float64(len(s.slots)) })
	reg.MustRegister(s.shed, s.busy)
	return s
}

func (s *shedder) handler(c *gin.Context) {
	select {
	case s.slots <- struct{}{}:
	default:
		t := time.NewTimer(s.wait)
		defer t.Stop()
		select {
		case s.slots <- struct{}{}:
		case <-t.C:
			s.shed.Inc()
			fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "the server is busy; retry shortly"))
			return
		case <-c.Request.Context().Done():
			c.AbortWithStatus(499)
			return
		}
	}
	defer func() { <-s.slots }()
	c.Next()
}
