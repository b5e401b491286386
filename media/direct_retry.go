package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/guidepost/guidepost"
)

// A direct upload that retries a failed photo sends its parts to a key of
// its own, never to the photo's original: the client only declares its
// bytes, and until they are checked they must not replace anything (the
// original may be the very bytes the photo was accepted with, failed only
// because a worker gave up). Completing checks the object as any upload's,
// then its SHA-256 against the photo's, and only then copies it over the
// original: what is copied is byte for byte what the row says the original
// is. The key is the upload's id under the originals' prefix, so an object
// left there by a crash has no row and the orphan sweep deletes it.
func retryKey(u Upload) string { return OriginalKey(u.ID) }

// completeRetry starts the failed photo the upload is of again, in the
// upload's write order: the original (copied from the checked object),
// then the row (back to pending), then the task.
func (s *Service) completeRetry(ctx context.Context, u Upload) (UploadResult, error) {
	staged := u.Key != OriginalKey(u.MediaID) // uploads opened before retryKey wrote in place
	if staged {
		if err := s.checkStaged(ctx, u); err != nil {
			if guidepost.ErrorCode(err) == guidepost.EUNPROCESSABLE {
				s.refuse(ctx, u)
			}
			return UploadResult{}, err
		}
	}
	refund, err := s.spendRender(ctx, u.OwnerID)
	if err != nil {
		return UploadResult{}, err
	}
	if staged {
		if err := s.deps.Blobs.Copy(ctx, u.Key, OriginalKey(u.MediaID)); err != nil {
			refund()
			return UploadResult{}, err
		}
	}
	var m Media
	err = s.detached(ctx, func(ctx context.Context) (err error) {
		m, err = s.deps.Store.Retry(ctx, u.MediaID, s.deps.Clock.Now())
		return err
	})
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		// Retried another way first, or deleted: the copy, of the same
		// bytes, changed nothing.
		refund()
		if staged {
			s.discardKey(ctx, u.Key)
		}
		if m, err = s.deps.Store.Get(ctx, u.MediaID); err != nil {
			s.setState(ctx, u, UploadCompleting, UploadAborted, u.MediaID)
			return UploadResult{}, err
		}
		s.setState(ctx, u, UploadCompleting, UploadCompleted, m.ID)
		return s.result(ctx, m, Duplicate)
	}
	if err != nil {
		return UploadResult{}, err
	}
	if staged {
		s.discardKey(ctx, u.Key)
	}
	return s.accepted(ctx, u, m)
}

// checkStaged hashes the whole staged object: a retry replaces an original
// only with the bytes its row names.
func (s *Service) checkStaged(ctx context.Context, u Upload) error {
	body, _, err := s.deps.Multipart.ReadFrom(ctx, u.Key, 0)
	if err != nil {
		return err
	}
	defer body.Close()
	h := sha256.New()
	if _, err := io.Copy(h, body); err != nil {
		return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the upload could not be read back from the store; try again shortly")
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != u.SHA256 {
		return errUnprocessable("sha256", guidepost.FMISMATCH,
			fmt.Sprintf("declared %s, but the bytes that arrived hash to %s", u.SHA256, got), nil)
	}
	return nil
}
