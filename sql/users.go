package sql

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/auth"
)

// Users stores accounts.
type Users struct {
	db      *DB
	checker atomic.Pointer[sessionChecker] // nil: one query per session check
}

var _ auth.Store = (*Users)(nil)

// NewUsers returns the PostgreSQL user store.
func NewUsers(db *DB) *Users { return &Users{db: db} }

const userColumns = `id::text, coalesce(email, ''), display_name, coalesce(password_hash, ''), guest, created_at`

func (s *Users) CreateUser(ctx context.Context, u auth.User) error {
	_, err := s.db.exec(ctx,
		`INSERT INTO users (id, email, display_name, password_hash, guest, created_at)
		 VALUES ($1, nullif($2, ''), $3, nullif($4, ''), $5, $6)`,
		u.ID, u.Email, u.DisplayName, u.PasswordHash, u.Guest, u.CreatedAt)
	return translate(err, "user")
}

// CreateAccount writes the account, its first session and that session's
// refresh token in one statement, so one round trip and one commit: a
// sign-up or a guest waits on one WAL flush instead of two, and no
// account is left without the session it was made for.
func (s *Users) CreateAccount(ctx context.Context, u auth.User, r auth.SessionRow, refreshHash []byte) error {
	_, err := s.db.exec(ctx, `WITH u AS (
			INSERT INTO users (id, email, display_name, password_hash, guest, created_at)
			VALUES ($1, nullif($2, ''), $3, nullif($4, ''), $5, $6)
			RETURNING id
		), sess AS (
			INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at)
			SELECT $7, id, $8, $9, $8 FROM u
			RETURNING id
		)
		INSERT INTO refresh_tokens (hash, session_id, created_at) SELECT $10, id, $8 FROM sess`,
		u.ID, u.Email, u.DisplayName, u.PasswordHash, u.Guest, u.CreatedAt, r.ID, r.CreatedAt, r.ExpiresAt, refreshHash)
	return translate(err, "user")
}

func (s *Users) UserByEmail(ctx context.Context, email string) (auth.User, error) {
	return s.one(ctx, `SELECT `+userColumns+` FROM users WHERE lower(email) = lower($1) AND deleted_at IS NULL`, email)
}

func (s *Users) UserByID(ctx context.Context, id string) (auth.User, error) {
	if !validUUID(id) {
		return auth.User{}, translate(pgx.ErrNoRows, "user")
	}
	return s.one(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1 AND deleted_at IS NULL`, id)
}

func (s *Users) one(ctx context.Context, query string, args ...any) (auth.User, error) {
	var u auth.User
	err := s.db.Pool.QueryRow(ctx, query, args...).Scan(&u.ID, &u.Email, &u.DisplayName, &u.PasswordHash, &u.Guest, &u.CreatedAt)
	return u, translate(err, "user")
}

// Rename's update fires users_guide_author, which bumps the tiles of the
// account's guides in this transaction (lists carry the author's name).
func (s *Users) Rename(ctx context.Context, userID, displayName string) (auth.User, error) {
	if !validUUID(userID) {
		return auth.User{}, translate(pgx.ErrNoRows, "user")
	}
	return s.one(ctx, `UPDATE users SET display_name = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING `+userColumns,
		userID, displayName)
}
