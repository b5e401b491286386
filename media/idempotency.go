package media

import (
	"context"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// uploadScope keeps upload keys apart from keys of other operations.
const uploadScope = "POST /v1/media"

// checkKey accepts what the IETF draft allows in practice: a short,
// printable token (UUIDs, ULIDs, random strings).
func checkKey(key string) error {
	if key == "" {
		return nil
	}
	if len(key) > 255 {
		return guidepost.Invalid(guidepost.Field(keyField, guidepost.FTOOLONG, "must be at most 255 characters"))
	}
	for _, r := range key {
		if r < '!' || r > '~' {
			return guidepost.Invalid(guidepost.Field(keyField, guidepost.FINVALIDCHARS, "must be printable ASCII without spaces"))
		}
	}
	return nil
}

// storeOnce runs store at most once per Idempotency-Key: a repeat with the
// same file replays the first answer for KeyTTL, a repeat with another file
// is refused (422), and a repeat while the first is running is 409. "The
// same body" is the same file bytes (its SHA-256): the multipart framing
// differs between two sends of the same photo.
//
// Only a request that got an answer is remembered. A refused or failed one
// releases its key so the client can retry it, as Stripe does.
func (s *Service) storeOnce(ctx context.Context, in UploadInput, info photo.Info) (UploadResult, error) {
	now := s.deps.Clock.Now()
	use := KeyUse{OwnerID: in.OwnerID, Scope: uploadScope, Key: in.IdempotencyKey, Fingerprint: in.File.sha256, At: now}
	held, claimed, err := s.deps.Keys.Claim(ctx, use, now.Add(-s.cfg.KeyLease), now.Add(-s.cfg.KeyTTL))
	if err != nil {
		return UploadResult{}, err
	}
	if !claimed {
		return s.replay(ctx, held, use)
	}
	res, err := s.store(ctx, in, info)
	s.settle(ctx, use, res.Outcome, res.ID, err)
	return res, err
}

// replay answers a repeat from the use that holds the key.
func (s *Service) replay(ctx context.Context, held, use KeyUse) (UploadResult, error) {
	if err := heldError(held, use); err != nil {
		return UploadResult{}, err
	}
	m, err := s.deps.Store.Get(ctx, held.ResourceID)
	if err != nil {
		return UploadResult{}, err
	}
	res, err := s.result(ctx, m, held.Outcome)
	res.Replayed = true
	return res, err
}

// heldError says why a repeat cannot be replayed from held: another body
// (422) or a first request still running (409); nil when it can.
func heldError(held, use KeyUse) error {
	switch {
	case held.Fingerprint != use.Fingerprint:
		return errUnprocessable(keyField, guidepost.FMISMATCH, "was already used with a different file", nil)
	case !held.Done:
		return &guidepost.Error{
			Code:    guidepost.ECONFLICT,
			Message: "a request with this Idempotency-Key is still in progress; retry in a moment",
			Fields:  []guidepost.FieldError{{Field: keyField, Code: guidepost.FINUSE, Message: "is in use by a request in progress"}},
		}
	}
	return nil
}

// settle records how the claimed use ended. It runs even when the client
// has hung up: the work is done and a retry should replay it.
func (s *Service) settle(ctx context.Context, use KeyUse, outcome Outcome, resourceID string, failed error) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var err error
	if failed != nil {
		err = s.deps.Keys.Release(sctx, use)
	} else {
		use.Done, use.Outcome, use.ResourceID = true, outcome, resourceID
		err = s.deps.Keys.Complete(sctx, use)
	}
	if err != nil {
		// Either a repeat took the key over after KeyLease (ECONFLICT: that
		// request records its own answer), or the write failed and the key
		// stays in flight until KeyLease passes; then a repeat takes it over
		// and finds the photo by its SHA-256. Either way, still one photo.
		s.deps.Log.WarnContext(ctx, "media: could not record the Idempotency-Key outcome", "err", err)
	}
}
