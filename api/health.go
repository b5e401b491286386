package api

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
)

// Check is one dependency that readiness reports on. A required check that
// fails makes /readyz 503; an optional one only degrades it: the API keeps
// answering without Redis (the cache falls back to PostgreSQL) and without
// S3 (uploads answer 503 by themselves), so a blip of either must not take
// every replica out of a load balancer.
type Check struct {
	Name     string
	Ping     func(context.Context) error
	Optional bool
}

// healthz says the process is alive; it touches no dependency, so a slow
// database never gets a healthy process restarted.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz reports every dependency's state and is 503 only when a required
// one is down or the server drains. The states are at most readyMaxAge
// old, from one check that every call within it shares: load balancers,
// and anyone else, can poll as often as they like without each call
// costing a database round trip and a billable S3 HeadBucket.
func (s *Server) readyz(c *gin.Context) {
	results := s.ready.within(c.Request.Context(), readyMaxAge)
	status, word := http.StatusOK, "ready"
	for _, chk := range s.deps.Checks {
		switch {
		case results[chk.Name] == "ok":
		case chk.Optional:
			if word == "ready" {
				word = "degraded"
			}
		default:
			status, word = http.StatusServiceUnavailable, "unavailable"
		}
	}
	if s.draining.Load() {
		status, word = http.StatusServiceUnavailable, "draining"
	}
	c.JSON(status, gin.H{"status": word, "checks": results})
}

// readyMaxAge is how old the states /readyz reports may be: a dependency
// that goes down turns it unready within about this much.
const readyMaxAge = time.Second

// readiness runs the checks and remembers the last results, which /readyz
// and the per-dependency gauge report.
type readiness struct {
	checks []Check
	now    func() time.Time
	log    func(ctx context.Context, name string, err error)
	flight singleflight.Group

	mu   sync.Mutex
	last map[string]string
	at   time.Time // when the check that gave last started
}

// check pings every dependency in parallel, each with a short deadline.
func (r *readiness) check(ctx context.Context) map[string]string {
	started := r.now()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	results := make(map[string]string, len(r.checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, chk := range r.checks {
		wg.Go(func() {
			state := "ok"
			if err := chk.Ping(ctx); err != nil {
				state = "unavailable"
				r.log(ctx, chk.Name, err)
			}
			mu.Lock()
			results[chk.Name] = state
			mu.Unlock()
		})
	}
	wg.Wait()
	r.mu.Lock()
	if started.After(r.at) || r.last == nil {
		r.last, r.at = results, started
	}
	r.mu.Unlock()
	return results
}

// within returns the last results if they are younger than maxAge, else
// those of a new check, one at a time however many callers want it. The
// check runs on without the caller that started it (bounded by its own
// deadline), so a caller that gives up does not fail the others; one that
// gives up gets the last results, or none.
func (r *readiness) within(ctx context.Context, maxAge time.Duration) map[string]string {
	r.mu.Lock()
	last, at := r.last, r.at
	r.mu.Unlock()
	if last != nil && r.now().Sub(at) < maxAge {
		return last
	}
	ch := r.flight.DoChan("check", func() (any, error) {
		return r.check(context.WithoutCancel(ctx)), nil
	})
	select {
	case res := <-ch:
		return res.Val.(map[string]string)
	case <-ctx.Done():
		return last
	}
}

// readinessCollector exports guidepost_dependency_up{dependency}: 1 when
// the last check reached it, 0 when not.
type readinessCollector struct {
	r    *readiness
	desc *prometheus.Desc
}

func (c readinessCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c readinessCollector) Collect(ch chan<- prometheus.Metric) {
	for name, state := range c.r.within(context.Background(), 5*time.Second) {
		up := 0.0
		if state == "ok" {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, up, name)
	}
}

func newReadiness(deps Deps) *readiness {
	r := &readiness{checks: deps.Checks, now: deps.Clock.Now, log: func(ctx context.Context, name string, err error) {
		deps.Log.WarnContext(ctx, "readiness check failed", "check", name, "err", err)
	}}
	if len(deps.Checks) > 0 {
		deps.Registry.MustRegister(readinessCollector{r: r, desc: prometheus.NewDesc("guidepost_dependency_up",
			"1 when the dependency answered its last readiness check (at most 5 s old), 0 when not.", []string{"dependency"}, nil)})
	}
	return r
}
