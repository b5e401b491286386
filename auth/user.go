// Package auth owns accounts: sign-up, log-in, guest users, sessions with
// short access tokens and rotating refresh tokens, and the bearer tokens
// that every other feature trusts to name the caller.
package auth

import (
	"context"
	"time"
)

// User is an account. Guests have no email and no password: the app creates
// one on first launch, and the load generator makes hundreds.
type User struct {
	ID           string
	Email        string
	DisplayName  string
	PasswordHash string
	Guest        bool
	CreatedAt    time.Time
}

// Session is what sign-up, log-in, guest creation and refresh hand back: a
// short-lived access token and the refresh token that gets the next one.
type Session struct {
	User             User
	AccessToken      string
	ExpiresIn        time.Duration
	RefreshToken     string
	RefreshExpiresIn time.Duration
}

// SessionRow is a stored session. Its refresh tokens are stored only as
// SHA-256 hashes.
type SessionRow struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Rotation is the outcome of presenting a refresh token.
type Rotation int

const (
	Rotated Rotation = iota // the token was current: the next one is stored
	Reused                  // the token was used before the grace: the session is revoked
	Dead                    // unknown, expired, revoked, or its account deleted
	Retried                 // the token was used within the grace: another next one is stored
)

// Store persists users and sessions. CreateAccount returns ECONFLICT for
// a taken email and lookups return ENOTFOUND; deleted accounts are not
// found.
type Store interface {
	// CreateAccount writes a new account with its first session and
	// refresh token, all or nothing.
	CreateAccount(ctx context.Context, u User, s SessionRow, refreshHash []byte) error
	UserByEmail(ctx context.Context, email string) (User, error)
	UserByID(ctx context.Context, id string) (User, error)

	CreateSession(ctx context.Context, s SessionRow, refreshHash []byte) error
	// RotateRefresh marks the refresh token hashed old as used, stores
	// next for the same session and moves the session's end to
	// r.Until(its start), in one transaction, answering Rotated with the
	// updated row. A token used within r.Grace stores next all the same
	// (Retried); one used before that revokes its session (committed) and
	// answers Reused.
	RotateRefresh(ctx context.Context, old, next []byte, r Renewal) (SessionRow, Rotation, error)
	RevokeSession(ctx context.Context, sessionID string, now time.Time) error
	// SessionLive reports whether the session exists, belongs to userID,
	// is not revoked or expired, and its account is not deleted.
	SessionLive(ctx context.Context, c Caller, now time.Time) (bool, error)
	// SetPassword stores a new hash and revokes every session of the user,
	// in one transaction.
	SetPassword(ctx context.Context, userID, hash string, now time.Time) error
	// Upgrade gives a guest an email, a password and a name, keeping its
	// id, and revokes every other session than keep, in one transaction;
	// ECONFLICT when the email is taken, ENOTFOUND when the account is no
	// (longer a) guest.
	Upgrade(ctx context.Context, u User, keep string, now time.Time) error
	// Rename sets the display name of a live account and returns it.
	Rename(ctx context.Context, userID, displayName string) (User, error)
}

// Caller is who an access token names.
type Caller struct {
	UserID    string
	SessionID string
}

type ctxKey struct{}

// NewContext records the authenticated caller; api middleware sets it.
func NewContext(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// UserID returns the authenticated caller's id, or "" for an anonymous call.
func UserID(ctx context.Context) string {
	c, _ := ctx.Value(ctxKey{}).(Caller)
	return c.UserID
}

// CallerOf returns the authenticated caller, zero for an anonymous call.
func CallerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(ctxKey{}).(Caller)
	return c
}
