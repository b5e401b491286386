package auth

import (
	"context"
	"errors"
	"time"

	"github.com/guidepost/guidepost"
)

// SweepStore deletes what sessions leave behind, at most limit rows per
// call, each call its own short statement or transaction.
type SweepStore interface {
	// DeleteUsedRefreshTokens deletes refresh tokens used before before.
	DeleteUsedRefreshTokens(ctx context.Context, before time.Time, limit int) (int, error)
	// DeleteDeadSessions deletes sessions revoked, or ended by now (their
	// refresh tokens go with them).
	DeleteDeadSessions(ctx context.Context, now time.Time, limit int) (int, error)
	// DeleteIdleGuests deletes guest accounts created before idleSince
	// with no session used since, that own nothing: no guide, photo,
	// like or upload.
	DeleteIdleGuests(ctx context.Context, idleSince time.Time, limit int) (int, error)
}

// Sweeper keeps the session tables bounded: every refresh writes a row and
// every guest launch an account, and without it nothing would ever go.
// The worker's sweeper runs it with the media sweep.
type Sweeper struct {
	deps SweeperDeps
	cfg  SweeperConfig
}

// SweeperDeps are what the sweeper deletes from, and its clock.
type SweeperDeps struct {
	Store SweepStore
	Clock guidepost.Clock
}

// SweeperConfig is what the sweeper keeps, and how much it deletes at once.
type SweeperConfig struct {
	// UsedRetention is how long a used refresh token is kept (at least
	// the grace): presented again meanwhile it revokes its session as
	// leaked; once deleted, it is merely unknown. Keeping them a while is
	// what catches a thief who refreshed first and the owner who comes
	// back later with the old token.
	UsedRetention time.Duration
	GuestIdle     time.Duration // GUEST_IDLE_TTL; 0 keeps every guest
	Batch         int           // rows per statement
	MaxBatches    int           // statements per kind per sweep
}

// DefaultSweeperConfig has every default: the numbers config.Parse
// starts from.
func DefaultSweeperConfig() SweeperConfig {
	return SweeperConfig{UsedRetention: 7 * 24 * time.Hour, GuestIdle: 30 * 24 * time.Hour, Batch: 1000, MaxBatches: 10}
}

// NewSweeper builds the sweeper; a zero Batch or MaxBatches takes the
// default, the ages are taken as given.
func NewSweeper(deps SweeperDeps, cfg SweeperConfig) *Sweeper {
	def := DefaultSweeperConfig()
	guidepost.Default(&cfg.Batch, def.Batch)
	guidepost.Default(&cfg.MaxBatches, def.MaxBatches)
	return &Sweeper{deps: deps, cfg: cfg}
}

// SweepReport counts what one sweep deleted.
type SweepReport struct{ Tokens, Sessions, Guests int }

// Sweep deletes, a batch at a time, used refresh tokens past their
// retention, dead sessions, and idle guests who own nothing. A backlog
// larger than MaxBatches batches is left to the next sweep, so one sweep
// never runs long.
func (s *Sweeper) Sweep(ctx context.Context) (SweepReport, error) {
	now := s.deps.Clock.Now().UTC()
	var r SweepReport
	var errs []error
	for _, kind := range []struct {
		n   *int
		del func(context.Context, int) (int, error)
		off bool
	}{
		{&r.Tokens, func(ctx context.Context, n int) (int, error) {
			return s.deps.Store.DeleteUsedRefreshTokens(ctx, now.Add(-s.cfg.UsedRetention), n)
		}, false},
		{&r.Sessions, func(ctx context.Context, n int) (int, error) { return s.deps.Store.DeleteDeadSessions(ctx, now, n) }, false},
		{&r.Guests, func(ctx context.Context, n int) (int, error) {
			return s.deps.Store.DeleteIdleGuests(ctx, now.Add(-s.cfg.GuestIdle), n)
		}, s.cfg.GuestIdle <= 0},
	} {
		if kind.off {
			continue
		}
		n, err := s.batches(ctx, kind.del)
		*kind.n += n
		errs = append(errs, err)
	}
	return r, errors.Join(errs...)
}

func (s *Sweeper) batches(ctx context.Context, del func(context.Context, int) (int, error)) (total int, err error) {
	size, most := s.cfg.Batch, s.cfg.MaxBatches
	for range most {
		n, err := del(ctx, size)
		total += n
		if err != nil || n < size {
			return total, err
		}
	}
	return total, nil
}
