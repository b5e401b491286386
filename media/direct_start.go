package media

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/idempotency"
)

// uploadsScope keeps direct-upload keys apart from POST /v1/media's.
const uploadsScope = "POST /v1/uploads"

// declaredTypes is the allow-list of content types a direct upload may
// declare, the types POST /v1/media accepts by their magic bytes.
var declaredTypes = map[string]string{
	"image/jpeg": "image/jpeg", "image/png": "image/png", "image/webp": "image/webp",
	"image/heic": "image/heic", "image/heif": "image/heic",
}

// StartUpload opens a direct upload, or answers with the owner's photo of
// the same bytes (no byte needs sending). With an Idempotency-Key a repeat
// replays the first answer, with fresh URLs.
func (s *Service) StartUpload(ctx context.Context, in NewUpload) (StartResult, error) {
	if err := s.directOn(); err != nil {
		return StartResult{}, err
	}
	if err := s.checkDeclared(&in); err != nil {
		return StartResult{}, err
	}
	if in.IdempotencyKey == "" {
		return s.startUpload(ctx, in)
	}
	var res StartResult
	held, replay, err := s.keeper().Run(ctx, idempotency.Request{OwnerID: in.OwnerID, Scope: uploadsScope,
		Key: in.IdempotencyKey, Fingerprint: s.fingerprint(in),
		Body: "declaration"},
		func() (string, string, error) {
			var err error
			res, err = s.startUpload(ctx, in)
			id := res.Ticket.ID
			if res.Outcome == Duplicate {
				id = res.Existing.ID
			}
			return string(res.Outcome), id, err
		})
	switch {
	case err != nil:
		return StartResult{}, err
	case replay:
		return s.replayStart(ctx, held)
	}
	return res, nil
}

func (s *Service) directOn() error {
	if s.deps.Uploads == nil || s.deps.Multipart == nil {
		return guidepost.Errorf(guidepost.EUNAVAILABLE, "direct uploads are not enabled on this server")
	}
	return nil
}

// checkDeclared refuses what POST /v1/media would refuse, from the
// declaration alone: a size over the limit (413), a type off the list (415).
func (s *Service) checkDeclared(in *NewUpload) error {
	var bad guidepost.Fields
	if in.OwnerID == "" {
		return guidepost.Errorf(guidepost.EUNAUTHORIZED, "uploading needs an account")
	}
	if in.Bytes <= 0 {
		bad.Add("bytes", guidepost.FOUTOFRANGE, "must be a positive number of bytes")
	}
	in.SHA256 = strings.ToLower(in.SHA256)
	if b, err := hex.DecodeString(in.SHA256); err != nil || len(b) != 32 {
		bad.Add("sha256", guidepost.FINVALIDFORMAT, "must be the file's SHA-256 as 64 hexadecimal digits")
	}
	if strings.TrimSpace(in.ContentType) == "" {
		bad.Add("content_type", guidepost.FREQUIRED, "is required: the photo's type, such as image/jpeg")
	}
	s.checkParts(in, &bad)
	bad = append(bad, guidepost.ErrorFields(checkKey(in.IdempotencyKey))...)
	if err := bad.Err(); err != nil {
		return err
	}
	if in.Bytes > s.cfg.MaxBytes {
		return fieldErr(errTooLarge(s.cfg.MaxBytes), "bytes")
	}
	t, ok := declaredTypes[strings.ToLower(strings.TrimSpace(in.ContentType))]
	if !ok {
		return fieldErr(errUnsupported(nil), "content_type")
	}
	in.ContentType = t
	return nil
}

// fieldErr renames the field an upload error names: a direct upload's
// declaration has bytes and content_type where a form has a file.
func fieldErr(err error, field string) error {
	e := err.(*guidepost.Error)
	for i := range e.Fields {
		e.Fields[i].Field = field
	}
	return e
}

func (s *Service) startUpload(ctx context.Context, in NewUpload) (StartResult, error) {
	u := Upload{OwnerID: in.OwnerID, Bytes: in.Bytes, SHA256: in.SHA256, Type: in.ContentType,
		PartSize: in.PartSize, PartSHA256: in.PartSHA256, State: UploadOpen}
	t0 := time.Now()
	m, err := s.deps.Store.BySHA256(ctx, in.OwnerID, in.SHA256)
	switch {
	case err == nil && (m.Status != StatusFailed || !reuploadHelps(m.FailureReason)):
		res, err := s.result(ctx, m, Duplicate)
		return StartResult{Existing: res, Outcome: Duplicate}, err
	case err == nil:
		// Failed for a reason outside its bytes: completing retries it, as
		// an upload to POST /v1/media would, once these bytes, sent to a
		// key of their own, have proved to be the photo's (retryKey).
		u.MediaID, u.Retry = m.ID, true
	case guidepost.ErrorCode(err) != guidepost.ENOTFOUND:
		return StartResult{}, err
	}
	// The same file declared again while its upload is open (an app that
	// lost the answer, or was killed before it saved the id) is that
	// upload, with fresh URLs: not a second one filling the owner's slots.
	switch t, err := s.openTwin(ctx, u); {
	case err != nil:
		return StartResult{}, err
	case t != nil:
		return StartResult{Ticket: *t, Outcome: UploadResumed}, nil
	}
	s.timed(stepCreateLookup, t0)
	// Asked, not spent: completing spends it (see limits.go).
	t0 = time.Now()
	if err := s.rateLeft(ctx, in.OwnerID); err != nil {
		return StartResult{}, err
	}
	s.timed(stepCreateRate, t0)
	if err := s.openUpload(ctx, &u); err != nil {
		return StartResult{}, err
	}
	t0 = time.Now()
	t, err := s.ticket(ctx, u, nil)
	s.timed(stepCreatePresign, t0)
	return StartResult{Ticket: t, Outcome: UploadStarted}, err
}

// openTwin finds the owner's upload of the same bytes (SHA-256 and size),
// cut in the same parts with the same declared part checksums, still open,
// as its owner sees it now; nil when there is none. An upload of the same
// file cut otherwise is not this declaration's: its URLs would not sign
// what this client means to send.
func (s *Service) openTwin(ctx context.Context, u Upload) (*UploadTicket, error) {
	open, err := s.deps.Uploads.OwnerUploads(ctx, u.OwnerID)
	if err != nil {
		return nil, err
	}
	now := s.deps.Clock.Now()
	for _, o := range open {
		if o.SHA256 == u.SHA256 && o.Bytes == u.Bytes && sameParts(o, u) && now.Before(o.Expires) {
			t, err := s.UploadStatus(ctx, o.ID, o.OwnerID)
			if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
				continue // expired or ended since it was listed
			}
			return &t, err
		}
	}
	return nil, nil
}

// OpenUploads lists the owner's uploads not yet completed nor expired, each
// as UploadStatus tells it (fresh URLs, the parts held): an app that lost
// its ids finds them again instead of leaking its slots for UPLOAD_TTL.
func (s *Service) OpenUploads(ctx context.Context, ownerID string) ([]UploadTicket, error) {
	if err := s.directOn(); err != nil {
		return nil, err
	}
	open, err := s.deps.Uploads.OwnerUploads(ctx, ownerID)
	if err != nil {
		return nil, err
	}
	out := make([]UploadTicket, 0, len(open))
	for _, u := range open {
		t, err := s.UploadStatus(ctx, u.ID, ownerID)
		switch {
		case guidepost.ErrorCode(err) == guidepost.ENOTFOUND:
			continue // expired, or ended since it was listed
		case err != nil:
			return nil, err
		}
		if t.State == UploadOpen || t.State == UploadCompleting {
			out = append(out, t)
		}
	}
	return out, nil
}

// openUpload opens the store's multipart upload, then records it within
// the owner's limits. A refused or failed insert aborts the store's upload;
// if even that fails, the sweeper aborts it after TTL.
func (s *Service) openUpload(ctx context.Context, u *Upload) error {
	id, err := s.newID()
	if err != nil {
		return err
	}
	u.ID = id.String()
	if u.MediaID == "" {
		mid, err := s.newID()
		if err != nil {
			return err
		}
		u.MediaID = mid.String()
	}
	u.Key = OriginalKey(u.MediaID)
	if u.Retry {
		u.Key = retryKey(*u)
	}
	now := s.deps.Clock.Now()
	u.Created, u.Updated, u.Expires = now, now, now.Add(s.cfg.Direct.TTL)
	t0 := time.Now()
	if u.StoreID, err = s.deps.Multipart.CreateMultipart(ctx, u.Key, u.Type, len(u.PartSHA256) > 0); err != nil {
		return err
	}
	s.timed(stepCreateStore, t0)
	t0 = time.Now()
	err = s.detached(ctx, func(ctx context.Context) error {
		return s.deps.Uploads.CreateUpload(ctx, *u, now.Add(-24*time.Hour), s.admit(*u))
	})
	s.timed(stepCreateInsert, t0)
	if err != nil {
		s.abortStore(ctx, *u)
	}
	return err
}

// admit applies the per-account limits: the quotas (an upload that retries
// a failed photo adds none to them), uploads open at once, and bytes
// declared in a day.
func (s *Service) admit(u Upload) func(UploadCounts) error {
	d := s.cfg.Direct
	quota := s.quota(u.Bytes, true)
	return func(c UploadCounts) error {
		if !u.Retry {
			if err := quota(c.Usage); err != nil {
				return err
			}
		}
		if c.Open >= d.MaxOpen {
			return &guidepost.Error{Code: guidepost.ECONFLICT,
				Message: fmt.Sprintf("you have %d uploads open, the most allowed: complete or cancel one first", c.Open),
				Fields:  []guidepost.FieldError{{Field: "uploads", Code: guidepost.FLIMITREACHED, Message: fmt.Sprintf("at most %d may be open at once", d.MaxOpen)}}}
		}
		if c.DayBytes+u.Bytes > d.DayBytes {
			return &guidepost.Error{Code: guidepost.ECONFLICT,
				Message: fmt.Sprintf("this upload would pass your allowance of %d MiB a day; try again later", d.DayBytes>>20),
				Fields:  []guidepost.FieldError{{Field: "bytes", Code: guidepost.FLIMITREACHED, Message: fmt.Sprintf("%d bytes are left for today", max(0, d.DayBytes-c.DayBytes))}}}
		}
		return nil
	}
}

func (s *Service) abortStore(ctx context.Context, u Upload) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.deps.Multipart.AbortMultipart(actx, u.Key, u.StoreID); err != nil {
		s.deps.Log.WarnContext(ctx, "media: could not abort a direct upload; the sweeper will", "upload_id", u.ID, "err", err)
	}
}

// replayStart answers a repeated StartUpload from the first one's outcome.
func (s *Service) replayStart(ctx context.Context, held KeyUse) (StartResult, error) {
	if Outcome(held.Outcome) == Duplicate {
		m, err := s.deps.Store.Get(ctx, held.ResourceID)
		if err != nil {
			return StartResult{}, err
		}
		res, err := s.result(ctx, m, Duplicate)
		return StartResult{Existing: res, Outcome: Duplicate, Replayed: true}, err
	}
	t, err := s.UploadStatus(ctx, held.ResourceID, held.OwnerID)
	return StartResult{Ticket: t, Outcome: Outcome(held.Outcome), Replayed: true}, err
}

// UploadStatus tells the owner which parts the store holds and gives fresh
// URLs for the others; a completed upload shows its photo. Anyone else's
// upload is not found.
func (s *Service) UploadStatus(ctx context.Context, id, ownerID string) (UploadTicket, error) {
	if err := s.directOn(); err != nil {
		return UploadTicket{}, err
	}
	u, err := s.ownUpload(ctx, id, ownerID)
	if err != nil {
		return UploadTicket{}, err
	}
	switch u.State {
	case UploadCompleted:
		m, err := s.deps.Store.Get(ctx, u.MediaID)
		if err != nil {
			return UploadTicket{}, err
		}
		v, err := s.view(ctx, m, ownerID)
		return UploadTicket{Upload: u, Photo: &v}, err
	case UploadAborted:
		return UploadTicket{Upload: u}, nil
	}
	held, err := s.deps.Multipart.ListParts(ctx, u.Key, u.StoreID)
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		// Completed by a complete call still running (or one that died
		// after the store joined the parts): nothing is left to send.
		return UploadTicket{Upload: u}, nil
	}
	if err != nil {
		return UploadTicket{}, err
	}
	return s.ticket(ctx, u, held)
}

// ownUpload reads an upload its owner may act on: not another's (not
// found, so ids cannot be probed), not an open one past its expiry.
func (s *Service) ownUpload(ctx context.Context, id, ownerID string) (Upload, error) {
	u, err := s.deps.Uploads.GetUpload(ctx, id)
	if err == nil && u.OwnerID != ownerID {
		err = guidepost.Errorf(guidepost.ENOTFOUND, "upload not found")
	}
	if err != nil {
		return Upload{}, err
	}
	if u.State == UploadOpen && !s.deps.Clock.Now().Before(u.Expires) {
		return Upload{}, guidepost.Errorf(guidepost.ENOTFOUND, "the upload expired at %s: start a new one", u.Expires.UTC().Format(time.RFC3339))
	}
	return u, nil
}

// ticket presigns a URL for every part: the ones the store holds as they
// were declared go to Held, the others (not there, or there at another
// size or with another SHA-256) to Send (see UploadTicket). Presigning is
// local computation, no request to the store.
func (s *Service) ticket(ctx context.Context, u Upload, held []Part) (UploadTicket, error) {
	t := UploadTicket{Upload: u, Held: []PartURL{}, Send: []PartURL{}}
	have := make(map[int32]Part, len(held))
	for _, p := range held {
		have[p.Number] = p
	}
	ttl := s.cfg.Direct.URLTTL
	t.URLsUntil = s.deps.Clock.Now().Add(ttl)
	for n := int32(1); n <= u.Parts(); n++ {
		want := u.Part(n)
		url, header, err := s.deps.Multipart.PresignPart(ctx, u.Key, u.StoreID, want, ttl)
		if err != nil {
			return UploadTicket{}, err
		}
		p := PartURL{Number: n, Bytes: want.Size, URL: url, Header: header}
		got, ok := have[n]
		if ok {
			p.Fault = partFault(want, got)
		}
		if ok && p.Fault == "" {
			p.ETag = got.ETag
			t.Held = append(t.Held, p)
		} else {
			t.Send = append(t.Send, p)
		}
	}
	return t, nil
}

// AbortUpload cancels an open upload and discards its parts. Aborting twice
// is success; a completed upload is a photo now (delete that instead).
func (s *Service) AbortUpload(ctx context.Context, id, ownerID string) error {
	if err := s.directOn(); err != nil {
		return err
	}
	u, err := s.deps.Uploads.GetUpload(ctx, id)
	if err == nil && u.OwnerID != ownerID {
		err = guidepost.Errorf(guidepost.ENOTFOUND, "upload not found")
	}
	switch {
	case err != nil:
		return err
	case u.State == UploadAborted:
		return nil
	case u.State != UploadOpen:
		return guidepost.Errorf(guidepost.ECONFLICT, "the upload is %s and can no longer be cancelled", u.State)
	}
	if err := s.deps.Multipart.AbortMultipart(ctx, u.Key, u.StoreID); err != nil {
		return err
	}
	err = s.deps.Uploads.SetUploadState(ctx, u.ID, UploadOpen, UploadAborted, u.MediaID, s.deps.Clock.Now())
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return guidepost.Errorf(guidepost.ECONFLICT, "the upload is being completed and can no longer be cancelled")
	}
	return err
}
