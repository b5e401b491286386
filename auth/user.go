// Package auth owns accounts: sign-up, log-in, guest users and the bearer
// tokens that every other feature trusts to name the caller.
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

// Session is what sign-up, log-in and guest creation hand back.
type Session struct {
	User        User
	AccessToken string
	ExpiresIn   time.Duration
}

// Store persists users. CreateUser returns ECONFLICT for a taken email and
// lookups return ENOTFOUND.
type Store interface {
	CreateUser(ctx context.Context, u User) error
	UserByEmail(ctx context.Context, email string) (User, error)
	UserByID(ctx context.Context, id string) (User, error)
}

type ctxKey struct{}

// NewContext records the authenticated caller's id; api middleware sets it.
func NewContext(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, ctxKey{}, userID)
}

// UserID returns the authenticated caller's id, or "" for an anonymous call.
func UserID(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}
