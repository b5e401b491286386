package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// DeriveTask is one run of a photo's derive task.
type DeriveTask struct {
	MediaID string
	// LastTry: the queue will not run this task again, so a transient
	// failure now fails the photo instead of leaving it unfinished forever.
	LastTry bool
}

// Derive renders a photo's web JPEG, thumbnail, marker and ThumbHash and
// marks it ready, or marks it failed when the photo itself is bad; either
// way its owner is notified once the row is committed. It is idempotent:
// the object keys and the JPEG bytes depend only on the original, and a
// finished row is never changed, so a second run (a retry after a crash, a
// duplicate delivery) leaves the same objects and the same row.
//
// A returned *TaskError says whether retrying can help.
func (s *Service) Derive(ctx context.Context, t DeriveTask) error {
	m, err := s.deps.Store.Start(ctx, t.MediaID, s.deps.Clock.Now())
	switch {
	case guidepost.ErrorCode(err) == guidepost.ENOTFOUND:
		// No row: nothing to derive for, now or later.
		return &TaskError{Reason: "missing_row", Permanent: true, Err: err}
	case err != nil:
		return s.giveUpIf(ctx, t, transient(err))
	case m.Status == StatusReady && (!m.Marker || m.Variants == nil):
		return s.backfill(ctx, m)
	case m.Status.Finished():
		return nil
	case m.Attempts > s.cfg.MaxAttempts:
		return s.fail(ctx, m, &TaskError{Reason: reasonGaveUp, Permanent: true,
			Err: fmt.Errorf("started %d times without finishing", m.Attempts-1), failure: failGaveUp})
	}
	d, err := s.derive(ctx, m)
	var te *TaskError
	if errors.As(err, &te) && te.Permanent {
		return s.fail(ctx, m, te)
	}
	if err != nil {
		return s.giveUpIf(ctx, t, err)
	}
	if err := s.deps.Store.VariantsStored(ctx, m.ID, d.variants); err != nil {
		return s.giveUpIf(ctx, t, transient(err))
	}
	if err := s.deps.Store.Finish(ctx, m.ID, d.thumbHash, d.capture, s.deps.Clock.Now()); err != nil {
		return s.giveUpIf(ctx, t, transient(err))
	}
	s.notify(ctx, m.OwnerID, m.ID, StatusReady)
	return nil
}

// backfill renders the variants (and the marker, for a photo made ready
// before markers existed) of a photo made ready before variants existed;
// until it has, the photo answers with its old JPEGs. The photo stays
// ready whatever happens: a render that fails now (it succeeded once) is
// logged and its task archived, and the sweeper does not queue a photo
// whose task is dead.
func (s *Service) backfill(ctx context.Context, m Media) error {
	err := s.renderBackfill(ctx, m)
	var te *TaskError
	if errors.As(err, &te) && te.Permanent {
		s.deps.Log.WarnContext(ctx, "media: cannot render the variants of a ready photo", "media_id", m.ID, "reason", te.Reason, "err", te.Err)
	}
	return err
}

func (s *Service) renderBackfill(ctx context.Context, m Media) error {
	data, err := s.download(ctx, m)
	if err != nil {
		return err
	}
	if err := checkSHA256(data, m.SHA256); err != nil {
		return err
	}
	res, err := s.renderBounded(ctx, data)
	if err != nil {
		return err
	}
	vs, err := s.putVariants(ctx, m.ID, res)
	if err != nil {
		return err
	}
	if err := s.deps.Store.VariantsStored(ctx, m.ID, vs); err != nil {
		return transient(err)
	}
	return nil
}

// derived is what a render adds to the row.
type derived struct {
	thumbHash string
	capture   photo.Capture
	variants  []Variant
}

// derive does the work between the two row updates.
func (s *Service) derive(ctx context.Context, m Media) (derived, error) {
	data, err := s.download(ctx, m)
	if err != nil {
		return derived{}, err
	}
	if err := checkSHA256(data, m.SHA256); err != nil {
		return derived{}, err
	}
	res, err := s.renderBounded(ctx, data)
	if err != nil {
		return derived{}, err
	}
	start := time.Now()
	vs, err := s.putVariants(ctx, m.ID, res)
	if err != nil {
		return derived{}, err
	}
	s.deps.Observer.ObserveStage("upload", time.Since(start))
	return derived{thumbHash: res.ThumbHash, capture: readCapture(data), variants: vs}, nil
}

func (s *Service) download(ctx context.Context, m Media) ([]byte, error) {
	start := time.Now()
	rc, _, err := s.deps.Blobs.Get(ctx, OriginalKey(m.ID))
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		// Not moved to its own prefix yet (see MoveOriginals).
		rc, _, err = s.deps.Blobs.Get(ctx, legacyOriginalKey(m.ID))
	}
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return nil, &TaskError{Reason: reasonMissing, Permanent: true, Err: err, failure: failMissing}
	}
	if err != nil {
		return nil, transient(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, s.cfg.MaxBytes+1))
	if err != nil {
		return nil, transient(guidepost.Wrap(guidepost.EUNAVAILABLE, err, "reading the original failed"))
	}
	s.deps.Observer.ObserveStage("download", time.Since(start))
	return data, nil
}

// renderBounded renders under the decode semaphore, weighted by the memory
// the render will need. That comes from the header of the downloaded bytes
// (photo.Info.RenderMemory), not from the row's pixel count: a progressive
// JPEG or a HEIC decoded in WebAssembly needs three to seven times what a
// baseline JPEG of the same size does. The photo is probed once, here; the
// renderer gets the probe and the weight, which a render in a child process
// takes as its memory limit.
func (s *Service) renderBounded(ctx context.Context, data []byte) (photo.Result, error) {
	if int64(len(data)) > s.cfg.MaxBytes {
		return photo.Result{}, classifyRender(fmt.Errorf("%w: more than %d bytes", photo.ErrTooLarge, s.cfg.MaxBytes))
	}
	info, err := photo.ProbeBytes(data, s.cfg.MaxPixels)
	if err != nil {
		return photo.Result{}, classifyRender(err)
	}
	weight := s.renderWeight(info)
	if err := s.render.Acquire(ctx, weight); err != nil {
		return photo.Result{}, transient(err)
	}
	// Released only once Render has returned: a renderer that cannot stop
	// its decoder must not return before the decoder's memory is free.
	defer s.render.Release(weight)
	start := time.Now()
	res, err := s.deps.Renderer.Render(ctx, data, info, photo.Options{Stage: s.deps.Observer.ObserveStage, Encodings: s.formats()[1:]})
	if err != nil {
		return photo.Result{}, classifyRender(err)
	}
	s.deps.Observer.ObserveStage("render", time.Since(start))
	s.deps.Observer.ObserveReencodes(res.Reencodes())
	return res, nil
}

// renderWeight is what one render takes from the decode semaphore: its
// memory estimate in MiB, at most the whole budget, so that a photo larger
// than the budget runs alone instead of never.
func (s *Service) renderWeight(info photo.Info) int64 {
	need := info.RenderMemory()
	if w, ok := s.deps.Renderer.(interface{ Weight(photo.Info) int64 }); ok {
		need = w.Weight(info) // a renderer's own cost, a child process's
	}
	need += photo.EncoderMemory(s.formats())
	return min((need+1<<20-1)>>20, s.renderBudget())
}

// fail records a permanent failure on the row and returns te. If the row
// cannot be written the error turns transient, so the task runs again and
// the photo does not stay "processing".
func (s *Service) fail(ctx context.Context, m Media, te *TaskError) error {
	if err := s.deps.Store.Fail(ctx, m.ID, te.Reason, te.failure, s.deps.Clock.Now()); err != nil {
		return transient(err)
	}
	s.deps.Log.InfoContext(ctx, "media: photo failed", "media_id", m.ID, "reason", te.Reason, "err", te.Err)
	s.notify(ctx, m.OwnerID, m.ID, StatusFailed)
	return te
}

// giveUpIf fails the photo when the queue will not retry err. A worker that
// is stopping (ctx ended) gives up nothing: its task goes back to the queue.
func (s *Service) giveUpIf(ctx context.Context, t DeriveTask, err error) error {
	if !t.LastTry || ctx.Err() != nil {
		return err
	}
	if ferr := s.deps.Store.Fail(ctx, t.MediaID, reasonGaveUp, failGaveUp, s.deps.Clock.Now()); ferr != nil {
		s.deps.Log.ErrorContext(ctx, "media: could not fail a photo after its last try", "media_id", t.MediaID, "err", ferr)
	} else if m, gerr := s.deps.Store.Get(ctx, t.MediaID); gerr == nil {
		s.notify(ctx, m.OwnerID, m.ID, m.Status)
	}
	return err
}

// notify tells the owner that a photo finished, after its row is
// committed. A lost notification costs the owner a poll, not the photo:
// it is logged and counted, never retried.
func (s *Service) notify(ctx context.Context, ownerID, id string, status Status) {
	if err := s.deps.Notifier.PhotoFinished(ctx, ownerID, id, status); err != nil {
		s.deps.Log.WarnContext(ctx, "media: owner not notified", "media_id", id, "status", status, "err", err)
	}
}
