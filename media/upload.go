package media

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// UploadInput is an upload as the API received it: the body spooled by
// Spool, which measured and hashed it.
type UploadInput struct {
	OwnerID        string
	File           *Spooled
	IdempotencyKey string // "" when the client sent none
}

// Outcome is how an upload was answered; a replay answers the same way.
type Outcome string

const (
	// Accepted: queued for its derivatives, a new photo or one that failed
	// for a reason outside its bytes and is tried again.
	Accepted  Outcome = "accepted"
	Duplicate Outcome = "duplicate" // the owner had uploaded these bytes before
)

// UploadResult is the photo an upload answers with.
type UploadResult struct {
	View
	Outcome  Outcome
	Replayed bool // answered from an earlier request with the same Idempotency-Key
}

// Upload accepts a photo. The write order is S3 original, then the row,
// then the task, so that a failure at any step leaves something the sweeper
// repairs and never a row without its original:
//   - S3 fails: nothing was written; the caller gets EUNAVAILABLE (503).
//   - the process dies after the put, or the insert fails: the original
//     stays, and the sweeper deletes it after OrphanAge if no row has it.
//     The upload deletes it itself only when the unique index refused the
//     insert: an insert that failed otherwise may have committed.
//   - the queue fails (Redis down): the photo is still accepted; the sweeper
//     queues it once it has been pending for PendingAge.
//
// The answer never waits for derivatives.
func (s *Service) Upload(ctx context.Context, in UploadInput) (UploadResult, error) {
	info, err := s.check(in)
	if err != nil {
		return UploadResult{}, err
	}
	if in.IdempotencyKey == "" {
		return s.store(ctx, in, info)
	}
	return s.storeOnce(ctx, in, info)
}

// check refuses bad input before anything is written: size, type by magic
// bytes, and the pixel count from the header, never decoding pixels.
func (s *Service) check(in UploadInput) (photo.Info, error) {
	switch {
	case in.OwnerID == "":
		return photo.Info{}, guidepost.Errorf(guidepost.EUNAUTHORIZED, "uploading needs an account")
	case in.File == nil || in.File.file == nil:
		return photo.Info{}, errors.New("media: upload without a spooled file")
	case in.File.size <= 0:
		return photo.Info{}, errEmptyFile()
	case in.File.size > s.cfg.MaxBytes:
		return photo.Info{}, errTooLarge(s.cfg.MaxBytes)
	}
	if err := checkKey(in.IdempotencyKey); err != nil {
		return photo.Info{}, err
	}
	head := make([]byte, photo.SniffLen)
	if _, err := in.File.file.Seek(0, io.SeekStart); err != nil {
		return photo.Info{}, err
	}
	n, err := io.ReadFull(in.File.file, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return photo.Info{}, err
	}
	format, err := photo.Sniff(head[:n])
	if err != nil {
		return photo.Info{}, errUnsupported(err)
	}
	info, err := photo.Probe(in.File.file, format, s.cfg.MaxPixels)
	if err != nil {
		return photo.Info{}, probeRefusal(err)
	}
	_, err = in.File.file.Seek(0, io.SeekStart)
	return info, err
}

// rowTimeout bounds a row write that outlives its request (see detached).
const rowTimeout = 10 * time.Second

// store writes a new photo, or finds the owner's copy of the same bytes.
func (s *Service) store(ctx context.Context, in UploadInput, info photo.Info) (UploadResult, error) {
	// Checked first so a repeat costs no S3 write; the unique index below
	// still decides when two uploads race.
	if m, err := s.deps.Store.BySHA256(ctx, in.OwnerID, in.File.sha256); err == nil {
		return s.again(ctx, in, m)
	} else if guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		return UploadResult{}, err
	}
	id, err := s.newID()
	if err != nil {
		return UploadResult{}, err
	}
	now := s.deps.Clock.Now()
	m := Media{
		ID: id.String(), OwnerID: in.OwnerID, Status: StatusPending,
		ContentType: info.Format.MIME(), Bytes: in.File.size, SHA256: in.File.sha256,
		Width: info.DisplayWidth, Height: info.DisplayHeight, CreatedAt: now, UpdatedAt: now,
		Capture: info.Capture(), // from the header: a guide may be pinned on it at once
	}
	admit, refund, err := s.admitNew(ctx, m, false)
	if err != nil {
		return UploadResult{}, err
	}
	if err := s.deps.Blobs.Put(ctx, OriginalKey(m.ID), in.File.file, in.File.size, m.ContentType, in.File.sha256); err != nil {
		refund()
		return UploadResult{}, err
	}
	err = s.detached(ctx, func(ctx context.Context) error { return s.deps.Store.Create(ctx, m, admit) })
	switch {
	case guidepost.ErrorCode(err) == guidepost.ECONFLICT:
		// Lost the race to an identical upload: the unique index refused
		// this row, so this original is certainly unused. Answer with the
		// winner.
		refund()
		s.discard(ctx, m.ID)
		if m, err = s.deps.Store.BySHA256(ctx, in.OwnerID, in.File.sha256); err != nil {
			return UploadResult{}, err
		}
		return s.result(ctx, m, Duplicate)
	case refused(err):
		// Uploads racing this one took the quota first: no row was written.
		refund()
		s.discard(ctx, m.ID)
		return UploadResult{}, err
	case err != nil:
		// The row may exist all the same: an insert whose reply was lost
		// after PostgreSQL committed fails here too. Deleting the original
		// could leave a row without it, so it stays; if there is no row,
		// the sweeper deletes it after OrphanAge.
		return UploadResult{}, err
	}
	s.enqueue(ctx, m.ID)
	return s.result(ctx, m, Accepted)
}

// again answers an upload of bytes the owner uploaded before: with that
// photo, unless it failed for a reason that lay outside its bytes (the
// worker gave up during an outage, the original was lost), whose failure
// asked the owner to upload it again. A photo that failed for its own
// fault (corrupt, unsupported) would only fail again, so it answers with
// its failure.
func (s *Service) again(ctx context.Context, in UploadInput, m Media) (UploadResult, error) {
	if m.Status != StatusFailed || !reuploadHelps(m.FailureReason) {
		return s.result(ctx, m, Duplicate)
	}
	return s.retry(ctx, in, m)
}

// retry starts a failed photo afresh, in the upload's write order: the
// original (again: the bytes are the same, so is the key, and it may be
// the lost part), then the row (back to pending), then the task (Enqueue
// replaces the failed one, whose id would block it).
func (s *Service) retry(ctx context.Context, in UploadInput, m Media) (UploadResult, error) {
	refund, err := s.spendRender(ctx, in.OwnerID)
	if err != nil {
		return UploadResult{}, err
	}
	if err := s.deps.Blobs.Put(ctx, OriginalKey(m.ID), in.File.file, in.File.size, m.ContentType, in.File.sha256); err != nil {
		refund()
		return UploadResult{}, err
	}
	var reset Media
	err = s.detached(ctx, func(ctx context.Context) (err error) {
		reset, err = s.deps.Store.Retry(ctx, m.ID, s.deps.Clock.Now())
		return err
	})
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		// Another upload retried it first: answer with the photo as it is.
		refund()
		if m, err = s.deps.Store.BySHA256(ctx, in.OwnerID, in.File.sha256); err != nil {
			return UploadResult{}, err
		}
		return s.result(ctx, m, Duplicate)
	}
	if err != nil {
		return UploadResult{}, err
	}
	s.deps.Log.InfoContext(ctx, "media: a failed photo was uploaded again; retrying it", "media_id", m.ID, "reason", m.FailureReason)
	s.enqueue(ctx, m.ID)
	return s.result(ctx, reset, Accepted)
}

// detached runs a row write to its end even when the client hangs up: a
// write canceled mid-flight may have committed or not, and the steps that
// follow (keep or delete the original, queue the task) need to know which.
// rowTimeout still bounds a sick database.
func (s *Service) detached(ctx context.Context, write func(context.Context) error) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rowTimeout)
	defer cancel()
	return write(wctx)
}

// enqueue is best effort: the row is committed, so a failure here only
// delays the photo until the sweeper queues it. It outlives a client that
// hangs up, and waits at most a second for a sick Redis.
func (s *Service) enqueue(ctx context.Context, id string) {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := s.deps.Queue.Enqueue(qctx, id); err != nil {
		s.deps.Log.WarnContext(ctx, "media: enqueue failed; the sweeper will queue it", "media_id", id, "err", err)
	}
}

// discard deletes an original whose row was certainly not written (the
// insert was refused). Failing here is harmless: the sweeper deletes
// orphans.
func (s *Service) discard(ctx context.Context, id string) { s.discardKey(ctx, OriginalKey(id)) }

func (s *Service) discardKey(ctx context.Context, key string) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.deps.Blobs.Delete(dctx, key); err != nil {
		s.deps.Log.WarnContext(ctx, "media: could not delete an unused original; the sweeper will", "key", key, "err", err)
	}
}

func (s *Service) result(ctx context.Context, m Media, o Outcome) (UploadResult, error) {
	v, err := s.view(ctx, m, m.OwnerID)
	return UploadResult{View: v, Outcome: o}, err
}
