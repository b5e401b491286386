package media

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// UploadInput is an upload as the API received it: the body already spooled
// somewhere seekable, its size and SHA-256 computed while it streamed in.
type UploadInput struct {
	OwnerID        string
	File           io.ReadSeeker
	Size           int64
	SHA256         string // hex
	IdempotencyKey string // "" when the client sent none
}

// Outcome is how an upload was answered; a replay answers the same way.
type Outcome string

const (
	Accepted  Outcome = "accepted"  // a new photo, queued for its derivatives
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
//   - the process dies after the put: an original without a row, deleted by
//     the sweeper after OrphanAge.
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
	case in.Size <= 0:
		return photo.Info{}, errEmptyFile()
	case in.Size > s.cfg.MaxBytes:
		return photo.Info{}, errTooLarge(s.cfg.MaxBytes)
	case len(in.SHA256) != 64:
		return photo.Info{}, errors.New("media: upload without a SHA-256")
	}
	if err := checkKey(in.IdempotencyKey); err != nil {
		return photo.Info{}, err
	}
	head := make([]byte, photo.SniffLen)
	if _, err := in.File.Seek(0, io.SeekStart); err != nil {
		return photo.Info{}, err
	}
	n, err := io.ReadFull(in.File, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return photo.Info{}, err
	}
	format, err := photo.Sniff(head[:n])
	if err != nil {
		return photo.Info{}, errUnsupported(err)
	}
	info, err := photo.Probe(in.File, format, s.cfg.MaxPixels)
	switch {
	case errors.Is(err, photo.ErrTooManyPixels):
		return photo.Info{}, errUnprocessable("file", "must have at most 50 megapixels", err)
	case errors.Is(err, photo.ErrCorrupt):
		return photo.Info{}, errUnprocessable("file", "is not a readable image: its header is damaged", err)
	case errors.Is(err, photo.ErrUnsupported):
		return photo.Info{}, errUnsupported(err)
	case err != nil:
		return photo.Info{}, err
	}
	_, err = in.File.Seek(0, io.SeekStart)
	return info, err
}

// store writes a new photo, or finds the owner's copy of the same bytes.
func (s *Service) store(ctx context.Context, in UploadInput, info photo.Info) (UploadResult, error) {
	// Checked first so a repeat costs no S3 write; the unique index below
	// still decides when two uploads race.
	if m, err := s.deps.Store.BySHA256(ctx, in.OwnerID, in.SHA256); err == nil {
		return s.result(ctx, m, Duplicate)
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
		ContentType: info.Format.MIME(), Bytes: in.Size, SHA256: in.SHA256,
		Width: info.DisplayWidth, Height: info.DisplayHeight, CreatedAt: now, UpdatedAt: now,
	}
	if err := s.deps.Blobs.Put(ctx, OriginalKey(m.ID), in.File, in.Size, m.ContentType, in.SHA256); err != nil {
		return UploadResult{}, err
	}
	if err := s.deps.Store.Create(ctx, m); err != nil {
		s.discard(ctx, m.ID)
		if guidepost.ErrorCode(err) != guidepost.ECONFLICT {
			return UploadResult{}, err
		}
		// Lost the race to an identical upload: answer with the winner.
		if m, err = s.deps.Store.BySHA256(ctx, in.OwnerID, in.SHA256); err != nil {
			return UploadResult{}, err
		}
		return s.result(ctx, m, Duplicate)
	}
	s.enqueue(ctx, m.ID)
	return s.result(ctx, m, Accepted)
}

// enqueue is best effort: the row is committed, so a failure here only
// delays the photo until the sweeper queues it. It outlives a client that
// hangs up, and waits at most a second for a sick Redis.
func (s *Service) enqueue(ctx context.Context, id string) {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := s.deps.Queue.Enqueue(qctx, id); err != nil {
		slog.WarnContext(ctx, "media: enqueue failed; the sweeper will queue it", "media_id", id, "err", err)
	}
}

// discard deletes an original whose row was not written. Failing here is
// harmless: the sweeper deletes orphans.
func (s *Service) discard(ctx context.Context, id string) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.deps.Blobs.Delete(dctx, OriginalKey(id)); err != nil {
		slog.WarnContext(ctx, "media: could not delete an unused original; the sweeper will", "media_id", id, "err", err)
	}
}

func (s *Service) result(ctx context.Context, m Media, o Outcome) (UploadResult, error) {
	v, err := s.view(ctx, m, m.OwnerID)
	return UploadResult{View: v, Outcome: o}, err
}
