package worker

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/media"
)

// Locker runs fn only if no other process holds the same lock; *sql.Media
// implements it with a PostgreSQL advisory lock. PostgreSQL rather than
// Redis, because the sweeper's main job is repairing what a Redis outage
// left behind.
type Locker interface {
	Exclusively(ctx context.Context, fn func(context.Context) error) (ran bool, err error)
}

// Sweepable is what the sweeper runs; *media.Service implements it.
type Sweepable interface {
	Sweep(ctx context.Context) (media.SweepReport, error)
}

// AccountSweepable removes deleted accounts whose purge was lost;
// *deletion.Service implements it.
type AccountSweepable interface {
	Sweep(ctx context.Context) (removed int, err error)
}

// SessionSweepable deletes used refresh tokens, dead sessions and idle
// guests; *auth.Sweeper implements it.
type SessionSweepable interface {
	Sweep(ctx context.Context) (auth.SweepReport, error)
}

// Sweeper runs the media sweep in every worker process, one process at a
// time across the fleet.
type Sweeper struct {
	SweeperDeps
	SweeperConfig
}

// SweeperDeps are what a sweep runs and reports to.
type SweeperDeps struct {
	Lock     Locker
	Media    Sweepable
	Accounts AccountSweepable // optional
	Sessions SessionSweepable // optional
	Metrics  *Metrics
	Log      *slog.Logger
}

// SweeperConfig spaces the sweeps.
type SweeperConfig struct {
	Interval time.Duration // MEDIA_SWEEP_INTERVAL: how often a worker tries to sweep
}

// DefaultSweeperConfig has every default: the numbers config.Parse starts
// from.
func DefaultSweeperConfig() SweeperConfig { return SweeperConfig{Interval: time.Minute} }

// NewSweeper builds the sweeper; a zero Interval takes the default.
func NewSweeper(deps SweeperDeps, cfg SweeperConfig) *Sweeper {
	guidepost.Default(&cfg.Interval, DefaultSweeperConfig().Interval)
	deps.Log = guidepost.Logger(deps.Log)
	return &Sweeper{SweeperDeps: deps, SweeperConfig: cfg}
}

// sweepTimeout bounds one run, so a hung dependency cannot hold the lock
// for ever.
const sweepTimeout = 5 * time.Minute

// Run sweeps at once, then every Interval (±10%, so a fleet started
// together does not contend on each tick) until ctx ends.
func (s *Sweeper) Run(ctx context.Context) {
	for {
		s.Once(ctx)
		jitter := time.Duration(float64(s.Interval) * (0.9 + 0.2*rand.Float64()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(jitter):
		}
	}
}

// Once runs one sweep if no other process is sweeping.
func (s *Sweeper) Once(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, sweepTimeout)
	defer cancel()
	var report media.SweepReport
	ran, err := s.Lock.Exclusively(ctx, func(ctx context.Context) error {
		var err error
		report, err = s.Media.Sweep(ctx)
		if s.Accounts != nil {
			removed, aerr := s.Accounts.Sweep(ctx)
			if removed > 0 {
				s.Log.Info("account sweep", "removed", removed)
			}
			err = errors.Join(err, aerr)
		}
		if s.Sessions != nil {
			r, serr := s.Sessions.Sweep(ctx)
			s.Metrics.sessionsSwept(r)
			if r != (auth.SweepReport{}) {
				s.Log.Info("session sweep", "refresh_tokens", r.Tokens, "sessions", r.Sessions, "guests", r.Guests)
			}
			err = errors.Join(err, serr)
		}
		return err
	})
	s.Metrics.swept(report, ran, err)
	switch {
	case err != nil && ctx.Err() == nil:
		s.Log.Warn("media sweep incomplete; the next one retries", "err", err, "requeued", report.Requeued,
			"failed", report.Failed, "orphans", report.Orphans, "uploads_aborted", report.UploadsAborted)
	case report != (media.SweepReport{}):
		s.Log.Info("media sweep", "requeued", report.Requeued, "failed", report.Failed,
			"orphans", report.Orphans, "purged", report.Purged, "keys_expired", report.KeysExpired, "uploads_aborted", report.UploadsAborted,
			"markers_queued", report.Markers)
	}
}
