package sql

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/auth"
)

// Users stores accounts.
type Users struct {
	db       *DB
	checker  atomic.Pointer[sessionChecker] // nil: one query per session check
	accounts atomic.Pointer[accountBatcher] // nil: one statement per new account
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
// account is left without the session it was made for. While account
// batching runs, it joins the next group commit (users_groupcommit.go).
func (s *Users) CreateAccount(ctx context.Context, u auth.User, r auth.SessionRow, refreshHash []byte) error {
	a := &newAccount{u: u, s: r, hash: refreshHash}
	if b := s.accounts.Load(); b != nil {
		if ok, err := b.submit(ctx, a); ok {
			if err == nil {
				s.db.noteWrite(ctx)
			}
			return err
		}
	}
	err := s.createAccounts(ctx, []*newAccount{a})
	if err == nil {
		s.db.noteWrite(ctx)
	}
	return err
}

// createAccounts writes accounts, each with its session and refresh
// token, in one statement: all or none.
func (s *Users) createAccounts(ctx context.Context, accounts []*newAccount) error {
	n := len(accounts)
	ids, emails, names, hashes, sids := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	guests, created, starts, ends, refresh := make([]bool, n), make([]time.Time, n), make([]time.Time, n), make([]time.Time, n), make([][]byte, n)
	for i, a := range accounts {
		ids[i], emails[i], names[i], hashes[i], guests[i], created[i] = a.u.ID, a.u.Email, a.u.DisplayName, a.u.PasswordHash, a.u.Guest, a.u.CreatedAt
		sids[i], starts[i], ends[i], refresh[i] = a.s.ID, a.s.CreatedAt, a.s.ExpiresAt, a.hash
	}
	_, err := s.db.Pool.Exec(ctx, `WITH a AS (
			SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::timestamptz[],
				$7::uuid[], $8::timestamptz[], $9::timestamptz[], $10::bytea[])
				AS a(id, email, display_name, password_hash, guest, created_at, sid, started, ends, refresh)
		), u AS (
			INSERT INTO users (id, email, display_name, password_hash, guest, created_at)
			SELECT id, nullif(email, ''), display_name, nullif(password_hash, ''), guest, created_at FROM a
		), sess AS (
			-- The foreign key to users is checked at the statement's end,
			-- when the accounts inserted beside it are there.
			INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at)
			SELECT sid, id, started, ends, started FROM a
		)
		INSERT INTO refresh_tokens (hash, session_id, created_at) SELECT refresh, sid, started FROM a`,
		ids, emails, names, hashes, guests, created, sids, starts, ends, refresh)
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
