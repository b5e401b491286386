// Package idempotency keeps the Idempotency-Key promise of every creating
// POST (photos, direct uploads, guides): a repeat with the same body
// replays the first answer for TTL, a repeat with another body is 422, a
// repeat while the first is still running is 409. Keys are kept beside the
// rows they protect (the sql package), so the promise holds while Redis is
// down. The features own what "the same body" and "the first answer" mean;
// this package owns the claim, its outcome and the refusals.
package idempotency

import (
	"context"
	"log/slog"
	"time"

	"github.com/guidepost/guidepost"
)

// Header is the request header, and the field its errors name.
const Header = "Idempotency-Key"

// Use is one use of an Idempotency-Key.
type Use struct {
	OwnerID     string
	Scope       string // the operation, e.g. "POST /v1/guides": keys of two operations never meet
	Key         string
	Fingerprint string // what "the same body" means for the scope
	Done        bool
	Outcome     string    // when Done: how the first answer ended, for the feature to replay it
	ResourceID  string    // when Done: what it answered with
	At          time.Time // when claimed; identifies the claim
}

// Store records Idempotency-Key uses.
type Store interface {
	// Claim reserves the key for this request unless another use holds it;
	// it then returns that use instead (claimed false). An expired record,
	// or an in-flight one abandoned before staleBefore with the same
	// fingerprint, is taken over.
	Claim(ctx context.Context, k Use, staleBefore, expiredBefore time.Time) (held Use, claimed bool, err error)
	// Complete records how the claimed use ended, for replays. Complete and
	// Release act only on the claim k itself made (its At is the claim's
	// token): once a request outlives the lease, another may take its key
	// over, and the stale one must not overwrite or free the new claim.
	// Complete then answers ECONFLICT; Release does nothing.
	Complete(ctx context.Context, k Use) error
	// Release forgets an in-flight claim whose request failed, so the client
	// may retry with the same key.
	Release(ctx context.Context, k Use) error
	DeleteExpired(ctx context.Context, before time.Time) (int64, error)
}

// Keeper runs requests at most once per key.
type Keeper struct {
	Store Store
	Clock guidepost.Clock
	TTL   time.Duration // how long a key replays (24 h)
	// Lease is how long an in-flight key blocks repeats (409) before a
	// repeat may take it over: a request that crashed must not hold its key
	// for the whole TTL.
	Lease time.Duration // 1 min
	Log   *slog.Logger  // nil discards
}

// Config is how long keys live: Keeper's TTL and Lease.
type Config struct {
	TTL   time.Duration
	Lease time.Duration
}

// DefaultConfig has every default: a key replays for a day, and an
// in-flight one blocks repeats for a minute.
func DefaultConfig() Config { return Config{TTL: 24 * time.Hour, Lease: time.Minute} }

// WithDefaults fills the zero fields.
func (k Keeper) WithDefaults() Keeper {
	def := DefaultConfig()
	guidepost.Default(&k.TTL, def.TTL)
	guidepost.Default(&k.Lease, def.Lease)
	if k.Clock == nil {
		k.Clock = guidepost.SystemClock{}
	}
	k.Log = guidepost.Logger(k.Log)
	return k
}

// Check accepts what the IETF draft allows in practice: a short, printable
// token (UUIDs, ULIDs, random strings). "" (no key) is fine.
func Check(key string) error {
	if key == "" {
		return nil
	}
	if len(key) > 255 {
		return guidepost.Invalid(guidepost.Field(Header, guidepost.FTOOLONG, "must be at most 255 characters"))
	}
	for _, r := range key {
		if r < '!' || r > '~' {
			return guidepost.Invalid(guidepost.Field(Header, guidepost.FINVALIDCHARS, "must be printable ASCII without spaces"))
		}
	}
	return nil
}

// Request is one keyed request: who sends it, to which operation, with
// which key and body.
type Request struct {
	OwnerID     string
	Scope       string
	Key         string
	Fingerprint string
	// Body names what the fingerprint covers, for the 422 a different one
	// gets: "file", "body", …
	Body string
}

// Run runs first at most once per key. A first request runs first and
// records its outcome and resource id (or frees the key if first fails,
// so the client can retry it, as Stripe does). A repeat gets the held use
// back with replay true, for the feature to answer as the first did; a
// repeat with another body is EUNPROCESSABLE and one while the first
// runs ECONFLICT, both naming the header.
func (k Keeper) Run(ctx context.Context, r Request, first func() (outcome, resourceID string, err error)) (held Use, replay bool, err error) {
	now := k.Clock.Now()
	use := Use{OwnerID: r.OwnerID, Scope: r.Scope, Key: r.Key, Fingerprint: r.Fingerprint, At: now}
	held, claimed, err := k.Store.Claim(ctx, use, now.Add(-k.Lease), now.Add(-k.TTL))
	if err != nil {
		return Use{}, false, err
	}
	if !claimed {
		if err := heldError(held, use, r.Body); err != nil {
			return Use{}, false, err
		}
		return held, true, nil
	}
	outcome, id, err := first()
	k.settle(ctx, use, outcome, id, err)
	return Use{}, false, err
}

// heldError says why a repeat cannot be replayed from held: another body
// (422) or a first request still running (409); nil when it can.
func heldError(held, use Use, body string) error {
	switch {
	case held.Fingerprint != use.Fingerprint:
		message := "was already used with a different " + body
		return &guidepost.Error{Code: guidepost.EUNPROCESSABLE, Message: Header + ": " + message,
			Fields: []guidepost.FieldError{guidepost.Field(Header, guidepost.FMISMATCH, message)}}
	case !held.Done:
		return &guidepost.Error{
			Code:    guidepost.ECONFLICT,
			Message: "a request with this Idempotency-Key is still in progress; retry in a moment",
			Fields:  []guidepost.FieldError{guidepost.Field(Header, guidepost.FINUSE, "is in use by a request in progress")},
		}
	}
	return nil
}

// settle records how the claimed use ended. It runs even when the client
// has hung up: the work is done and a retry should replay it.
func (k Keeper) settle(ctx context.Context, use Use, outcome, resourceID string, failed error) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var err error
	if failed != nil {
		err = k.Store.Release(sctx, use)
	} else {
		use.Done, use.Outcome, use.ResourceID = true, outcome, resourceID
		err = k.Store.Complete(sctx, use)
	}
	if err != nil {
		// Either a repeat took the key over after Lease (ECONFLICT: that
		// request records its own answer), or the write failed and the key
		// stays in flight until Lease passes; then a repeat takes it over
		// and runs again, which the feature must make harmless (photos are
		// found again by their SHA-256).
		k.Log.WarnContext(ctx, "could not record the Idempotency-Key outcome", "scope", use.Scope, "err", err)
	}
}

// Expire deletes the records past TTL, of every scope.
func (k Keeper) Expire(ctx context.Context) (int64, error) {
	return k.Store.DeleteExpired(ctx, k.Clock.Now().Add(-k.TTL))
}
