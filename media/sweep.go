package media

import (
	"context"
	"errors"
	"fmt"
)

// SweepReport counts what one sweep repaired.
type SweepReport struct {
	Requeued    int   // unfinished photos with no live task, queued again
	Failed      int   // unfinished photos whose task the queue gave up on
	Orphans     int   // originals with no row, deleted
	Purged      int   // deleted photos whose purge task was lost, purged
	KeysExpired int64 // Idempotency-Key records past KeyTTL, deleted
	// UploadsAborted counts direct uploads left open past their TTL, aborted.
	UploadsAborted int
	// Markers counts ready photos rendered before variants (and markers)
	// existed, queued for the back-fill that renders them.
	Markers int
}

// sweepBatch bounds the rows one sweep checks; the rest wait for the next.
const sweepBatch = 500

// Sweep repairs what crashes and outages leave between S3, PostgreSQL and
// the queue. Its parts are independent (an unreachable Redis must not stop
// orphan deletion), so each runs and their errors are joined. Run it in one
// process at a time; a second concurrent run is harmless but wasteful.
func (s *Service) Sweep(ctx context.Context) (SweepReport, error) {
	var r SweepReport
	var errs []error
	if err := s.requeueStale(ctx, &r); err != nil {
		errs = append(errs, fmt.Errorf("requeue: %w", err))
	}
	if err := s.deleteOrphans(ctx, &r); err != nil {
		errs = append(errs, fmt.Errorf("orphans: %w", err))
	}
	if err := s.purgeDeleted(ctx, &r); err != nil {
		errs = append(errs, fmt.Errorf("purge: %w", err))
	}
	if err := s.abortAbandoned(ctx, &r); err != nil {
		errs = append(errs, fmt.Errorf("direct uploads: %w", err))
	}
	if err := s.queueMarkers(ctx, &r); err != nil {
		errs = append(errs, fmt.Errorf("markers: %w", err))
	}
	n, err := s.keeper().Expire(ctx)
	if err != nil {
		errs = append(errs, fmt.Errorf("idempotency keys: %w", err))
	}
	r.KeysExpired = n
	return r, errors.Join(errs...)
}

// requeueStale looks at photos unfinished for PendingAge. A row committed
// whose enqueue failed, or whose task Redis lost, has no task: it is queued
// again. One whose task the queue archived (retries exhausted, or a crash
// on its last try) is failed, so nothing stays pending forever and a photo
// that crashes workers cannot loop. But a dead task of a photo that no
// worker has started since it was queued belongs to an earlier life: a
// failed photo uploaded again while Redis was down (its old task could not
// be replaced then), or one whose every try failed before starting. That
// photo was never tried, so it is queued again (Enqueue replaces the dead
// task). Every row looked at is touched, so a long backlog is walked
// through rather than re-checked from its head.
func (s *Service) requeueStale(ctx context.Context, r *SweepReport) error {
	now := s.deps.Clock.Now()
	stale, err := s.deps.Store.Stale(ctx, now.Add(-s.cfg.PendingAge), sweepBatch)
	if err != nil {
		return err
	}
	for _, m := range stale {
		state, err := s.deps.Queue.TaskState(ctx, m.ID)
		if err != nil {
			return err // the queue is unreachable: the next sweep retries
		}
		neverStarted := m.Status == StatusPending && m.Attempts == 0
		switch {
		case state == TaskDead && !neverStarted:
			if err := s.deps.Store.Fail(ctx, m.ID, reasonGaveUp, failGaveUp, now); err != nil {
				return err
			}
			s.notify(ctx, m.OwnerID, m.ID, StatusFailed)
			r.Failed++
			continue
		case state == TaskMissing, state == TaskDead:
			if err := s.deps.Queue.Enqueue(ctx, m.ID); err != nil {
				return err
			}
			s.deps.Log.InfoContext(ctx, "media: sweeper queued a photo that had no live task", "media_id", m.ID, "status", m.Status)
			r.Requeued++
		}
		if err := s.deps.Store.Touch(ctx, m.ID, now); err != nil {
			return err
		}
	}
	return nil
}

// markerBatch bounds the markers one sweep queues: rendering one costs as
// much as a new photo, and a backlog of old photos must not crowd out new
// uploads (50 a minute is about half a core of workers).
const markerBatch = 50

// queueMarkers is the back-fill: it queues the derive task of ready photos
// rendered before variants (those without a marker among them), at most
// markerBatch a sweep, on the workers' own queue and render semaphore;
// Derive renders their variants and leaves the rest of the row alone. The
// rows are its only state, so it resumes after any crash. A photo whose task is live
// is on its way; one whose task is dead could not be rendered again and is
// left alone (it keeps showing without a marker).
func (s *Service) queueMarkers(ctx context.Context, r *SweepReport) error {
	ids, err := s.deps.Store.WithoutVariants(ctx, markerBatch)
	if err != nil {
		return err
	}
	for _, id := range ids {
		state, err := s.deps.Queue.TaskState(ctx, id)
		if err != nil {
			return err
		}
		if state != TaskMissing {
			continue
		}
		if err := s.deps.Queue.Enqueue(ctx, id); err != nil {
			return err
		}
		r.Markers++
	}
	return nil
}
