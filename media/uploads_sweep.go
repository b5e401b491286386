package media

import (
	"context"
	"time"

	"github.com/guidepost/guidepost"
)

// abortAbandoned ends direct uploads left open past their TTL, so nothing a
// client walked away from stays stored:
//   - each expired upload row: its store upload is aborted, an object a
//     complete call joined before dying without a row is deleted, and the
//     row is marked aborted;
//   - each store upload initiated more than TTL (and a minute) ago
//     (ListMultipartUploads), which covers one whose row was never written;
//   - rows a day past their expiry are forgotten (the day's byte allowance
//     counts them until then).
func (s *Service) abortAbandoned(ctx context.Context, r *SweepReport) error {
	if s.deps.Uploads == nil || s.deps.Multipart == nil {
		return nil
	}
	now := s.deps.Clock.Now()
	expired, err := s.deps.Uploads.ExpiredUploads(ctx, now, sweepBatch)
	if err != nil {
		return err
	}
	for _, u := range expired {
		if u.State == UploadCompleting && u.Updated.After(now.Add(-s.cfg.Direct.CompleteLease)) {
			continue // a complete call is at work on it right now
		}
		if err := s.endUpload(ctx, u, now); err != nil {
			return err
		}
		r.UploadsAborted++
	}
	// The store's clock is not ours and its times have whole seconds: a
	// little slack keeps this leg off uploads whose row has not expired.
	cutoff := now.Add(-s.cfg.Direct.TTL)
	storeCutoff := cutoff.Add(-min(s.cfg.Direct.TTL, time.Minute))
	err = s.deps.Multipart.ListMultipart(ctx, "", func(o OpenUpload) error {
		if !o.Initiated.Before(storeCutoff) {
			return nil
		}
		if err := s.deps.Multipart.AbortMultipart(ctx, o.Key, o.UploadID); err != nil {
			return err
		}
		s.deps.Log.InfoContext(ctx, "media: sweeper aborted an abandoned direct upload", "key", o.Key, "initiated", o.Initiated)
		r.UploadsAborted++
		return nil
	})
	if err != nil {
		return err
	}
	_, err = s.deps.Uploads.DeleteUploads(ctx, cutoff.Add(-24*time.Hour))
	return err
}

// endUpload aborts one expired upload. A photo row for its media id means
// the object at its key is that photo's original: it stays. Otherwise an
// object there was joined by a complete call that died before writing the
// row, and nothing will ever own it; nor will a retry's own object
// (retryKey), row or not.
func (s *Service) endUpload(ctx context.Context, u Upload, now time.Time) error {
	if err := s.deps.Multipart.AbortMultipart(ctx, u.Key, u.StoreID); err != nil {
		return err
	}
	_, err := s.deps.Store.Get(ctx, u.MediaID)
	switch {
	case guidepost.ErrorCode(err) == guidepost.ENOTFOUND, u.Key != OriginalKey(u.MediaID):
		if err := s.deps.Blobs.Delete(ctx, u.Key); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	err = s.deps.Uploads.SetUploadState(ctx, u.ID, u.State, UploadAborted, u.MediaID, now)
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return nil // it moved on meanwhile (a late complete): let it be
	}
	if err != nil {
		return err
	}
	s.deps.Log.InfoContext(ctx, "media: aborted a direct upload (expired, or its account deleted)", "upload_id", u.ID, "state", u.State)
	return nil
}
