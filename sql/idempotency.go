package sql

import (
	"context"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/idempotency"
)

// IdempotencyKeys records Idempotency-Key uses in PostgreSQL, beside the rows
// they protect, so creating requests keep their guarantees while Redis is
// down.
type IdempotencyKeys struct{ db *DB }

var _ idempotency.Store = (*IdempotencyKeys)(nil)

// NewIdempotencyKeys returns the PostgreSQL key store.
func NewIdempotencyKeys(db *DB) *IdempotencyKeys { return &IdempotencyKeys{db: db} }

// Claim inserts the key, or takes over a record that expired or that a
// crashed request abandoned in flight (same fingerprint only: another body
// must still be refused). Otherwise it returns the record that holds the
// key. The insert-or-read loop covers a record released between the two
// statements.
func (s *IdempotencyKeys) Claim(ctx context.Context, k idempotency.Use, staleBefore, expiredBefore time.Time) (idempotency.Use, bool, error) {
	for range 3 {
		tag, err := s.db.Pool.Exec(ctx,
			`INSERT INTO idempotency_keys AS k (owner_id, scope, key, fingerprint, state, created_at, updated_at)
			 VALUES ($1, $2, $3, $4, 'in_flight', $5, $5)
			 ON CONFLICT (owner_id, scope, key) DO UPDATE
			   SET fingerprint = excluded.fingerprint, state = 'in_flight', outcome = NULL, resource_id = NULL,
			       created_at = excluded.created_at, updated_at = excluded.updated_at
			   WHERE k.created_at < $6
			      OR (k.state = 'in_flight' AND k.updated_at < $7 AND k.fingerprint = excluded.fingerprint)`,
			k.OwnerID, k.Scope, k.Key, k.Fingerprint, k.At, expiredBefore, staleBefore)
		if err != nil {
			return idempotency.Use{}, false, translate(err, "idempotency key")
		}
		if tag.RowsAffected() == 1 {
			return k, true, nil
		}
		held, err := s.get(ctx, k)
		if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
			continue
		}
		return held, false, err
	}
	return idempotency.Use{}, false, guidepost.Errorf(guidepost.ECONFLICT, "the Idempotency-Key is contended; retry in a moment")
}

func (s *IdempotencyKeys) get(ctx context.Context, k idempotency.Use) (idempotency.Use, error) {
	held := idempotency.Use{OwnerID: k.OwnerID, Scope: k.Scope, Key: k.Key}
	var state string
	var outcome, resource *string
	err := s.db.Pool.QueryRow(ctx,
		`SELECT fingerprint, state, outcome, resource_id::text, created_at FROM idempotency_keys
		 WHERE owner_id = $1 AND scope = $2 AND key = $3`, k.OwnerID, k.Scope, k.Key).
		Scan(&held.Fingerprint, &state, &outcome, &resource, &held.At)
	if err != nil {
		return idempotency.Use{}, translate(err, "idempotency key")
	}
	held.Done = state == "done"
	if outcome != nil {
		held.Outcome = *outcome
	}
	if resource != nil {
		held.ResourceID = *resource
	}
	return held, nil
}

// Complete keeps the record's created_at: a replay window runs from the
// first request, not from the last. A claim is known by its created_at (the
// claiming request's At, which Claim writes on insert and on takeover): a
// takeover needs the old claim to be KeyLease old, so two claims of one key
// never share it.
func (s *IdempotencyKeys) Complete(ctx context.Context, k idempotency.Use) error {
	tag, err := s.db.Pool.Exec(ctx,
		`UPDATE idempotency_keys SET state = 'done', outcome = $4, resource_id = $5, updated_at = $6
		 WHERE owner_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight' AND created_at = $6`,
		k.OwnerID, k.Scope, k.Key, k.Outcome, k.ResourceID, k.At)
	if err != nil {
		return translate(err, "idempotency key")
	}
	if tag.RowsAffected() == 0 {
		return guidepost.Errorf(guidepost.ECONFLICT, "the Idempotency-Key claim was taken over by another request")
	}
	return nil
}

// Release deletes only this use's own in-flight claim: never a finished
// record, nor the claim of a request that took the key over.
func (s *IdempotencyKeys) Release(ctx context.Context, k idempotency.Use) error {
	_, err := s.db.Pool.Exec(ctx,
		`DELETE FROM idempotency_keys
		 WHERE owner_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight' AND created_at = $4`,
		k.OwnerID, k.Scope, k.Key, k.At)
	return translate(err, "idempotency key")
}

func (s *IdempotencyKeys) DeleteExpired(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, before)
	return tag.RowsAffected(), translate(err, "idempotency key")
}
