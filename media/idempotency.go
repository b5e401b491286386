package media

import (
	"context"

	"github.com/guidepost/guidepost/idempotency"
	"github.com/guidepost/guidepost/media/photo"
)

// uploadScope keeps upload keys apart from keys of other operations.
const uploadScope = "POST /v1/media"

// checkKey accepts what the IETF draft allows in practice (see
// idempotency.Check).
func checkKey(key string) error { return idempotency.Check(key) }

// keeper runs uploads at most once per Idempotency-Key.
func (s *Service) keeper() idempotency.Keeper {
	return idempotency.Keeper{Store: s.deps.Keys, Clock: s.deps.Clock, TTL: s.cfg.KeyTTL, Lease: s.cfg.KeyLease, Log: s.deps.Log}
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
	var res UploadResult
	held, replay, err := s.keeper().Run(ctx, idempotency.Request{OwnerID: in.OwnerID, Scope: uploadScope,
		Key: in.IdempotencyKey, Fingerprint: in.File.sha256, Body: "file"},
		func() (string, string, error) {
			var err error
			res, err = s.store(ctx, in, info)
			return string(res.Outcome), res.ID, err
		})
	switch {
	case err != nil:
		return UploadResult{}, err
	case replay:
		return s.replay(ctx, held)
	}
	return res, nil
}

// replay answers a repeat from the use that holds the key.
func (s *Service) replay(ctx context.Context, held KeyUse) (UploadResult, error) {
	m, err := s.deps.Store.Get(ctx, held.ResourceID)
	if err != nil {
		return UploadResult{}, err
	}
	res, err := s.result(ctx, m, Outcome(held.Outcome))
	res.Replayed = true
	return res, err
}
