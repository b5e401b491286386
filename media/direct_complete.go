package media

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// CompleteUpload joins a direct upload's parts into the photo's original
// and accepts it as POST /v1/media would: the size, the type by its magic
// bytes and the pixel count from the header (read with ranged GETs), the
// same refusals (a refused object is deleted), then the row (pending) and
// the task, in Upload's write order and with its guarantees. Completing a
// completed upload answers with its photo again.
func (s *Service) CompleteUpload(ctx context.Context, id, ownerID string) (UploadResult, error) {
	if err := s.directOn(); err != nil {
		return UploadResult{}, err
	}
	t0 := time.Now()
	u, err := s.ownUpload(ctx, id, ownerID)
	if err != nil {
		return UploadResult{}, err
	}
	switch u.State {
	case UploadCompleted:
		m, err := s.deps.Store.Get(ctx, u.MediaID)
		if err != nil {
			return UploadResult{}, err
		}
		res, err := s.result(ctx, m, Accepted)
		res.Replayed = true
		return res, err
	case UploadAborted:
		return UploadResult{}, guidepost.Errorf(guidepost.ENOTFOUND, "the upload was cancelled or refused: start a new one")
	}
	now := s.deps.Clock.Now()
	if u, err = s.deps.Uploads.ClaimUpload(ctx, id, now, now.Add(-s.cfg.Direct.CompleteLease)); err != nil {
		return UploadResult{}, err
	}
	s.timed(stepCompleteClaim, t0)
	res, err := s.complete(ctx, u)
	switch guidepost.ErrorCode(err) {
	case "", guidepost.EUNSUPPORTED, guidepost.ETOOLARGE, guidepost.EUNPROCESSABLE, guidepost.ENOTFOUND,
		guidepost.EQUOTA, guidepost.EUNAUTHORIZED:
		// Done, or over: complete has recorded the upload's end.
	default:
		// Parts missing, or a dependency failed: the client may try again.
		s.setState(ctx, u, UploadCompleting, UploadOpen, u.MediaID)
	}
	return res, err
}

func (s *Service) complete(ctx context.Context, u Upload) (UploadResult, error) {
	if err := s.joinParts(ctx, u); err != nil {
		return UploadResult{}, err
	}
	t0 := time.Now()
	info, err := s.inspect(ctx, u)
	if err != nil {
		s.refuse(ctx, u)
		return UploadResult{}, err
	}
	s.timed(stepCompleteProbe, t0)
	if u.Retry {
		return s.completeRetry(ctx, u)
	}
	now := s.deps.Clock.Now()
	m := Media{
		ID: u.MediaID, OwnerID: u.OwnerID, Status: StatusPending, ContentType: info.Format.MIME(),
		Bytes: u.Bytes, SHA256: u.SHA256, Width: info.DisplayWidth, Height: info.DisplayHeight,
		CreatedAt: now, UpdatedAt: now, Capture: info.Capture(), // from the header: a guide may be pinned on it at once
	}
	// Checked again now, as the quotas may have filled since the upload
	// was created; a rate refusal leaves the upload open (and its object
	// joined) for a complete after Retry-After.
	t0 = time.Now()
	admit, refund, err := s.admitNew(ctx, m, true)
	if refused(err) {
		s.refuse(ctx, u)
	}
	if err != nil {
		return UploadResult{}, err
	}
	s.timed(stepCompleteAdmit, t0)
	t0 = time.Now()
	err = s.detached(ctx, func(ctx context.Context) error { return s.deps.Store.Create(ctx, m, admit) })
	s.timed(stepCompleteInsert, t0)
	switch {
	case guidepost.ErrorCode(err) == guidepost.ECONFLICT:
		refund() // this row was made, and its render paid, by an earlier call; or not made at all
		won, err := s.deps.Store.BySHA256(ctx, u.OwnerID, u.SHA256)
		if err != nil {
			return UploadResult{}, err
		}
		if won.ID == m.ID {
			// An earlier call wrote this row and then failed: finish its work.
			return s.accepted(ctx, u, won)
		}
		// The same bytes arrived another way first: answer with that photo.
		s.discard(ctx, m.ID)
		s.setState(ctx, u, UploadCompleting, UploadCompleted, won.ID)
		return s.result(ctx, won, Duplicate)
	case refused(err):
		refund()
		s.refuse(ctx, u)
		return UploadResult{}, err
	case err != nil:
		return UploadResult{}, err // the original stays: the row may have committed
	}
	return s.accepted(ctx, u, m)
}

// refuse ends an upload whose object no row will own: the object is
// deleted (a retry's is its own, see retryKey) and the upload aborted.
func (s *Service) refuse(ctx context.Context, u Upload) {
	s.discardKey(ctx, u.Key)
	s.setState(ctx, u, UploadCompleting, UploadAborted, u.MediaID)
}

// accepted closes the upload on its photo and queues the photo's task.
func (s *Service) accepted(ctx context.Context, u Upload, m Media) (UploadResult, error) {
	t0 := time.Now()
	s.setState(ctx, u, UploadCompleting, UploadCompleted, m.ID)
	s.timed(stepCompleteState, t0)
	t0 = time.Now()
	s.enqueue(ctx, m.ID)
	s.timed(stepCompleteEnqueue, t0)
	t0 = time.Now()
	defer s.timed(stepCompleteAnswer, t0)
	return s.result(ctx, m, Accepted)
}

// joinParts completes the store's upload when every part is there as
// declared (its size, and its SHA-256 when one was declared); the others
// are ECONFLICT naming them, and nothing is joined. An upload the store no
// longer holds open was joined by an earlier call that died before its
// row: its object is used as it stands.
func (s *Service) joinParts(ctx context.Context, u Upload) error {
	t0 := time.Now()
	held, err := s.deps.Multipart.ListParts(ctx, u.Key, u.StoreID)
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		if _, _, serr := s.deps.Multipart.Stat(ctx, u.Key); serr != nil {
			s.setState(ctx, u, UploadCompleting, UploadAborted, u.MediaID)
			return guidepost.Errorf(guidepost.ENOTFOUND, "the upload's parts are gone: start a new one")
		}
		return nil
	}
	if err != nil {
		return err
	}
	s.timed(stepCompleteList, t0)
	t0 = time.Now()
	t, err := s.ticket(ctx, u, held)
	if err != nil {
		return err
	}
	s.timed(stepCompletePresign, t0)
	if len(t.Send) > 0 {
		return errMissingParts(t.Send)
	}
	parts := make([]Part, len(t.Held))
	for i, p := range t.Held {
		parts[i] = u.Part(p.Number)
		parts[i].ETag = p.ETag
	}
	t0 = time.Now()
	defer s.timed(stepCompleteJoin, t0)
	return s.deps.Multipart.CompleteMultipart(ctx, u.Key, u.StoreID, parts)
}

// errMissingParts names the parts to send again: all of them under
// "parts", and each one the store holds otherwise than declared under
// "parts[N]" (N its number) with what is wrong with it.
func errMissingParts(missing []PartURL) error {
	nums := make([]string, len(missing))
	fields := []guidepost.FieldError{{Field: "parts", Code: guidepost.FINCOMPLETE}}
	for i, p := range missing {
		nums[i] = fmt.Sprint(p.Number)
		if p.Fault != "" {
			fields = append(fields, guidepost.FieldError{Field: fmt.Sprintf("parts[%d]", p.Number), Code: guidepost.FMISMATCH,
				Message: p.Fault + ": send it again"})
		}
	}
	list := strings.Join(nums, ", ")
	fields[0].Message = "missing: " + list
	msg := "parts " + list + " have not arrived"
	if len(fields) > 1 {
		msg = "parts " + list + " have not arrived as declared"
	}
	return &guidepost.Error{
		Code:    guidepost.ECONFLICT,
		Message: msg + ": send them (GET the upload for fresh URLs), then complete again",
		Fields:  fields,
	}
}

// inspect checks the joined object as check checks a POST /v1/media body,
// reading only its head: the real size, the type from its magic bytes
// against the declared one, and the pixel count from the header.
func (s *Service) inspect(ctx context.Context, u Upload) (photo.Info, error) {
	r, err := openRange(ctx, s.deps.Multipart, u.Key)
	defer r.Close()
	switch size := r.size; {
	case err != nil:
		return photo.Info{}, err
	case size > s.cfg.MaxBytes:
		return photo.Info{}, errTooLarge(s.cfg.MaxBytes)
	case size != u.Bytes:
		return photo.Info{}, errUnprocessable("bytes", guidepost.FMISMATCH, fmt.Sprintf("declared %d, but %d arrived", u.Bytes, size), nil)
	}
	head := make([]byte, min(int64(photo.SniffLen), r.size))
	if _, err := io.ReadFull(r, head); err != nil {
		return photo.Info{}, err
	}
	format, err := photo.Sniff(head)
	if err != nil {
		return photo.Info{}, errUnsupported(err)
	}
	if format.MIME() != u.Type {
		return photo.Info{}, &guidepost.Error{Code: guidepost.EUNSUPPORTED,
			Message: fmt.Sprintf("the upload was declared %s but the file is %s", u.Type, format.MIME()),
			Fields:  []guidepost.FieldError{{Field: "content_type", Code: guidepost.FMISMATCH, Message: "must be the file's real type, " + format.MIME()}}}
	}
	info, err := photo.Probe(r, format, s.cfg.MaxPixels)
	if r.err != nil {
		return photo.Info{}, r.err // the store failed mid-probe: not the photo's fault
	}
	if err != nil {
		return photo.Info{}, probeRefusal(err)
	}
	return info, nil
}

// setState records an upload's new state even when the client has hung up.
// A failure is logged: the sweeper settles uploads left behind.
func (s *Service) setState(ctx context.Context, u Upload, from, to UploadState, mediaID string) {
	err := s.detached(ctx, func(ctx context.Context) error {
		return s.deps.Uploads.SetUploadState(ctx, u.ID, from, to, mediaID, s.deps.Clock.Now())
	})
	if err != nil {
		s.deps.Log.WarnContext(ctx, "media: could not record a direct upload's state", "upload_id", u.ID, "to", to, "err", err)
	}
}
