package media

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/guidepost/guidepost"
)

// An account's limits on uploads, one accounting whatever the route (POST
// /v1/media, or a direct upload created and completed): a limit on one
// route alone would be a hole in its twin.
//
//   - The quotas (QuotaPhotos, QuotaBytes) count the photos stored and the
//     direct uploads open, with the bytes they declared. They are checked
//     when an upload starts (cheaply, before any byte is stored) and again
//     by the insert of the row (Store.Create), under a per-owner lock that
//     every insert of a photo or an upload takes, so uploads racing, from
//     any process and route, cannot pass a quota together.
//   - The rate (RATE_UPLOADS_PER_USER) counts renders queued: a new photo
//     and a failed one tried again, on either route. It is asked when an
//     upload starts (spending nothing, so that a refused start costs no
//     body and no parts) and spent when the photo is accepted, just before
//     its row; an acceptance that ends up writing no row gives it back.
//     The sweeper's requeues and back-fills are not counted: they queue
//     each photo at most once per sweep, whoever owns it, and the markers
//     are bounded per sweep (markerBatch).

// AdmitUpload refuses, before its body is read, an upload that its owner's
// limits leave no room for: the rate spent, or the photo quota full.
// Upload checks again, and spends; this only saves the body's transfer.
func (s *Service) AdmitUpload(ctx context.Context, ownerID string) error {
	if ownerID == "" {
		return guidepost.Errorf(guidepost.EUNAUTHORIZED, "uploading needs an account")
	}
	if err := s.rateLeft(ctx, ownerID); err != nil {
		return err
	}
	u, err := s.deps.Store.Usage(ctx, ownerID, "", s.deps.Clock.Now())
	if err != nil {
		return err
	}
	return s.quota(0, true)(u)
}

// admitNew passes a new photo m through its owner's limits before its row
// is written: the quotas, then the rate, which it spends (refund gives it
// back). admit is the quota check for the row's insert, which repeats it
// under the owner's lock. A completing upload (reserved) had its place
// reserved when it was created: the other uploads open are not counted
// against it, only what is stored, so that uploads reserved under a larger
// quota (before a change) complete as far as the quota now goes.
func (s *Service) admitNew(ctx context.Context, m Media, reserved bool) (admit func(Usage) error, refund func(), err error) {
	admit = s.quota(m.Bytes, !reserved)
	u, err := s.deps.Store.Usage(ctx, m.OwnerID, m.ID, m.CreatedAt)
	if err == nil {
		err = admit(u)
	}
	if err == nil {
		refund, err = s.spendRender(ctx, m.OwnerID)
	}
	return admit, refund, err
}

// quota is the check that one more photo of size bytes fits its owner's
// quotas, given what it stores and, with open, what its open uploads
// declare.
func (s *Service) quota(size int64, open bool) func(Usage) error {
	return func(u Usage) error {
		if !open {
			u.Open, u.OpenBytes = 0, 0
		}
		if used := u.Photos + u.Open; used+1 > s.cfg.QuotaPhotos {
			msg := fmt.Sprintf("this account stores %d photos, its quota", u.Photos)
			if u.Open > 0 {
				msg = fmt.Sprintf("this account stores %d photos and has %d uploads open: its quota is %d",
					u.Photos, u.Open, s.cfg.QuotaPhotos)
			}
			return guidepost.QuotaExceeded("photos", s.cfg.QuotaPhotos, used, msg)
		}
		if used := u.Bytes + u.OpenBytes; used+size > s.cfg.QuotaBytes {
			return guidepost.QuotaExceeded("bytes", s.cfg.QuotaBytes, used,
				fmt.Sprintf("this photo would take the account past its quota of %d MiB stored (%d MiB used, open uploads included)",
					s.cfg.QuotaBytes>>20, used>>20))
		}
		return nil
	}
}

// refused reports an insert that the owner's limits (or its deletion)
// refused: nothing was written, so what was stored for it may be deleted.
func refused(err error) bool {
	switch guidepost.ErrorCode(err) {
	case guidepost.EQUOTA, guidepost.EUNAUTHORIZED:
		return true
	}
	return false
}

func (s *Service) rateOn() bool { return s.deps.Limiter != nil && !s.cfg.UploadRate.Off() }

// rateLeft refuses when the owner's rate has no upload left, spending
// nothing.
func (s *Service) rateLeft(ctx context.Context, ownerID string) error {
	if !s.rateOn() {
		return nil
	}
	res := s.deps.Limiter.Take(ctx, ownerID, s.cfg.UploadRate, 0)
	if res.Remaining >= 1 {
		return nil
	}
	// Asking answers no RetryAfter: the next upload is back one emission
	// interval before the whole allowance is.
	interval := s.cfg.UploadRate.Period / time.Duration(s.cfg.UploadRate.Count)
	res.Allowed, res.RetryAfter = false, max(res.ResetAfter-time.Duration(s.cfg.UploadRate.Count-1)*interval, interval)
	return s.rateError(res)
}

// spendRender spends one of the owner's uploads for a render about to be
// queued. refund gives it back, for an acceptance that wrote no row after
// all; it outlives a client that hung up.
func (s *Service) spendRender(ctx context.Context, ownerID string) (refund func(), err error) {
	if !s.rateOn() {
		return func() {}, nil
	}
	res := s.deps.Limiter.Take(ctx, ownerID, s.cfg.UploadRate, 1)
	if !res.Allowed {
		return nil, s.rateError(res)
	}
	return func() { s.deps.Limiter.Take(context.WithoutCancel(ctx), ownerID, s.cfg.UploadRate, -1) }, nil
}

func (s *Service) rateError(res guidepost.RateResult) error {
	wait := int(math.Ceil(max(res.RetryAfter, time.Second).Seconds()))
	return guidepost.RateLimited(s.cfg.UploadRate, res, fmt.Sprintf(
		"too many uploads (%s allows %d per %s, whichever way they are sent); retry in %d s",
		s.cfg.UploadRate.Name, s.cfg.UploadRate.Count, s.cfg.UploadRate.Period, wait))
}
