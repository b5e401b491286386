package api

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// Check is one dependency that readiness reports on.
type Check struct {
	Name string
	Ping func(context.Context) error
}

// healthz says the process is alive; it touches no dependency, so a slow
// database never gets a healthy process restarted.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz pings every dependency in parallel, each with its own short
// deadline, and names each one's state.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	results := make(map[string]string, len(s.deps.Checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, chk := range s.deps.Checks {
		wg.Go(func() {
			state := "ok"
			if err := chk.Ping(ctx); err != nil {
				state = "unavailable"
				s.deps.Log.WarnContext(ctx, "readiness check failed", "check", chk.Name, "err", err)
			}
			mu.Lock()
			results[chk.Name] = state
			mu.Unlock()
		})
	}
	wg.Wait()
	status, word := http.StatusOK, "ready"
	for _, state := range results {
		if state != "ok" {
			status, word = http.StatusServiceUnavailable, "unavailable"
		}
	}
	if s.draining.Load() {
		status, word = http.StatusServiceUnavailable, "draining"
	}
	c.JSON(status, gin.H{"status": word, "checks": results})
}
