package media

import (
	"context"
	"strings"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth/deletion"
)

// Delete deletes a photo for its owner. The row is hidden and the photo
// leaves its guides at once, in one transaction; its objects and row are
// removed by a queued, retried purge, and by the sweeper if that task is
// lost. Anyone but the owner gets EFORBIDDEN; a missing or already deleted
// photo ENOTFOUND.
func (s *Service) Delete(ctx context.Context, id, userID string) error {
	m, err := s.deps.Store.Get(ctx, id)
	if err != nil {
		return err
	}
	if m.OwnerID != userID {
		return guidepost.Errorf(guidepost.EFORBIDDEN, "only the owner may delete this photo")
	}
	if err := s.deps.Store.MarkDeleted(ctx, id, s.deps.Clock.Now()); err != nil {
		return err
	}
	if err := s.deps.Queue.EnqueuePurge(ctx, id); err != nil {
		// The photo is gone for every reader; the sweeper purges it later.
		s.deps.Log.WarnContext(ctx, "media: purge not queued; the sweeper will purge the photo", "media_id", id, "err", err)
	}
	return nil
}

var _ deletion.Photos = (*Service)(nil)

// DeleteOwned deletes and purges every photo of ownerID, for an account
// being deleted. It is idempotent: a second run purges what the first left.
func (s *Service) DeleteOwned(ctx context.Context, ownerID string) error {
	ids, err := s.deps.Store.MarkOwnerDeleted(ctx, ownerID, s.deps.Clock.Now())
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.Purge(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// AbortUploads ends every open direct upload of ownerID, for an account
// being deleted: the store discards its parts (so its part URLs take no
// more bytes), an object a complete call joined is deleted unless a row
// owns it (DeleteOwned purges those), and the upload is aborted. A
// complete racing it is refused its row: the account is marked deleted.
// It is idempotent.
func (s *Service) AbortUploads(ctx context.Context, ownerID string) error {
	if s.deps.Uploads == nil || s.deps.Multipart == nil {
		return nil
	}
	open, err := s.deps.Uploads.OwnerUploads(ctx, ownerID)
	if err != nil {
		return err
	}
	for _, u := range open {
		if err := s.endUpload(ctx, u, s.deps.Clock.Now()); err != nil {
			return err
		}
	}
	return nil
}

// Purge removes a deleted photo's objects, then its row: a crash in between
// leaves a row the sweeper purges again. Deleting a missing object is
// success, so a purge runs any number of times.
func (s *Service) Purge(ctx context.Context, id string) error {
	for _, key := range append(objectKeys(id), withheldKeys(id)...) {
		if err := s.deps.Blobs.Delete(ctx, key); err != nil {
			return err
		}
	}
	// Every version of every variant, withheld or not: the row is gone by
	// now for reads, and a render that crashed before its row was written
	// left objects the row never named.
	for _, prefix := range []string{keyPrefix + id + "/", withheldKey(keyPrefix + id + "/")} {
		keys, err := s.listKeys(ctx, prefix)
		if err != nil {
			return err
		}
		for _, key := range keys {
			if err := s.deps.Blobs.Delete(ctx, key); err != nil {
				return err
			}
		}
	}
	return s.deps.Store.Purge(ctx, id)
}

// purgeDeleted purges photos deleted more than PendingAge ago whose purge
// task was lost or gave up.
func (s *Service) purgeDeleted(ctx context.Context, r *SweepReport) error {
	ids, err := s.deps.Store.Deleted(ctx, s.deps.Clock.Now().Add(-s.cfg.PendingAge), sweepBatch)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.Purge(ctx, id); err != nil {
			return err
		}
		r.Purged++
	}
	return nil
}

// MoveOriginals moves originals stored under the old layout
// (media/<id>/original, beside the derivatives) to originals/<id>. Each is
// copied, then the old key deleted; readers try the new key first and fall
// back to the old, so it runs while serving, and a second run (or one
// resumed after a crash) copies only what is still under the old key.
func MoveOriginals(ctx context.Context, blobs Blobs) (moved int, err error) {
	err = blobs.List(ctx, keyPrefix, func(o Object) error {
		id, _, ok := idOfKey(o.Key)
		if !ok || !strings.HasSuffix(o.Key, "/original") || o.Key != legacyOriginalKey(id) {
			return nil
		}
		err := blobs.Copy(ctx, o.Key, OriginalKey(id))
		if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
			return nil // purged or moved by another run meanwhile
		}
		if err != nil {
			return err
		}
		if err := blobs.Delete(ctx, o.Key); err != nil {
			return err
		}
		moved++
		return nil
	})
	return moved, err
}
