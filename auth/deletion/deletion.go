// Package deletion deletes accounts; package auth, beside it, owns them.
// Deleting is two steps: at once, the account is marked deleted and every
// session revoked (its tokens answer 401 from the next request on); then a
// retried background job removes its likes (correcting every count), its
// guides, its photos with their objects, and finally the account row.
// Every step is idempotent, and the sweeper runs the job again for an
// account a crash left half removed.
package deletion

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/guidepost/guidepost"
)

// Store changes the rows an account owns. Every method is idempotent.
type Store interface {
	// MarkDeleted marks the account deleted, forgets its email and
	// password (so the email is free at once), and revokes its sessions,
	// in one transaction. A missing or already deleted account is ENOTFOUND.
	MarkDeleted(ctx context.Context, userID string, now time.Time) error
	// RemoveLikes deletes the account's likes and takes each from its
	// guide's count, in one transaction.
	RemoveLikes(ctx context.Context, userID string) error
	// RemoveGuides deletes the account's guides (their likes and photo
	// links go with them; their tiles are bumped by the tile trigger).
	RemoveGuides(ctx context.Context, userID string) error
	// RemoveUser deletes the row of an account marked deleted, and with it
	// whatever still refers to it (sessions, idempotency keys).
	RemoveUser(ctx context.Context, userID string) error
	// Deleted lists accounts marked deleted before before and not removed.
	Deleted(ctx context.Context, before time.Time, limit int) ([]string, error)
}

// Photos deletes an owner's photos and their objects; *media.Service
// implements it.
type Photos interface {
	// AbortUploads ends the owner's open direct uploads: the store
	// discards their parts, so their presigned URLs take no more bytes.
	AbortUploads(ctx context.Context, ownerID string) error
	DeleteOwned(ctx context.Context, ownerID string) error
}

// Queue carries purge jobs to the workers.
type Queue interface {
	EnqueueAccountPurge(ctx context.Context, userID string) error
}

// Deps are what the feature consumes.
type Deps struct {
	Store  Store
	Photos Photos
	Queue  Queue
	Clock  guidepost.Clock
	Log    *slog.Logger // nil discards
}

// Service deletes accounts.
type Service struct{ deps Deps }

// New builds the service.
func New(deps Deps) *Service {
	deps.Log = guidepost.Logger(deps.Log)
	return &Service{deps: deps}
}

// Delete ends the account now and queues the removal of everything it
// owns. A lost job is redone by the sweeper after sweepAge.
func (s *Service) Delete(ctx context.Context, userID string) error {
	if err := s.deps.Store.MarkDeleted(ctx, userID, s.deps.Clock.Now()); err != nil {
		return err
	}
	if err := s.deps.Queue.EnqueueAccountPurge(ctx, userID); err != nil {
		s.deps.Log.WarnContext(ctx, "account: purge not queued; the sweeper will remove the account", "user_id", userID, "err", err)
	}
	return nil
}

// Purge removes everything a deleted account owns, then the account. The
// order matters: its open uploads first (their part URLs, handed out for
// hours, stop taking bytes at once), likes (their counts are corrected
// while the guides they count still exist), then guides (which frees the
// photos they show), then photos, then the row that everything else
// refers to. Nothing is added behind it: the account is marked deleted
// before, and no like, photo or upload is written for a deleted account.
func (s *Service) Purge(ctx context.Context, userID string) error {
	steps := []struct {
		name string
		run  func(context.Context, string) error
	}{
		{"uploads", s.deps.Photos.AbortUploads},
		{"likes", s.deps.Store.RemoveLikes},
		{"guides", s.deps.Store.RemoveGuides},
		{"photos", s.deps.Photos.DeleteOwned},
		{"account", s.deps.Store.RemoveUser},
	}
	for _, step := range steps {
		if err := step.run(ctx, userID); err != nil {
			return fmt.Errorf("account %s: removing %s: %w", userID, step.name, err)
		}
	}
	s.deps.Log.InfoContext(ctx, "account: removed", "user_id", userID)
	return nil
}

// sweepAge is how long a deleted account waits for its job before the
// sweeper removes it itself.
const sweepAge = 5 * time.Minute

// Sweep removes accounts whose purge job was lost or gave up.
func (s *Service) Sweep(ctx context.Context) (removed int, err error) {
	ids, err := s.deps.Store.Deleted(ctx, s.deps.Clock.Now().Add(-sweepAge), 100)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, id := range ids {
		if err := s.Purge(ctx, id); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}
