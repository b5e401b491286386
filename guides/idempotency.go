package guides

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/idempotency"
)

// createScope keeps guide keys apart from keys of other operations.
const createScope = "POST /v1/guides"

// CreateOnce is Create under an Idempotency-Key (key "" is plain Create): a
// repeat with the same input answers with the guide the first created, as
// it is now (replayed true); another input is 422, a repeat while the
// first runs 409. "The same input" is the same decoded values, so two
// sends that differ only in whitespace or key order are the same.
func (s *Service) CreateOnce(ctx context.Context, authorID, key string, in Input) (Guide, bool, error) {
	if err := idempotency.Check(key); err != nil {
		return Guide{}, false, err
	}
	if key == "" {
		g, err := s.Create(ctx, authorID, in)
		return g, false, err
	}
	if s.keys == nil {
		return Guide{}, false, guidepost.Errorf(guidepost.EUNAVAILABLE, "Idempotency-Key is not enabled on this server")
	}
	var g Guide
	held, replay, err := s.keys.Run(ctx, idempotency.Request{OwnerID: authorID, Scope: createScope, Key: key,
		Fingerprint: inputFingerprint(in), Body: "body"},
		func() (string, string, error) {
			var err error
			g, err = s.Create(ctx, authorID, in)
			return "created", g.ID, err
		})
	switch {
	case err != nil:
		return Guide{}, false, err
	case replay:
		g, err = s.Get(ctx, held.ResourceID, authorID)
		return g, true, err
	}
	return g, false, nil
}

// inputFingerprint hashes the input's values: encoding/json writes a
// struct's fields in one order, and nothing else goes in.
func inputFingerprint(in Input) string {
	b, err := json.Marshal(in)
	if err != nil { // only plain values: never happens
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
