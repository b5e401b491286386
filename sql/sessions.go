package sql

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"

	"github.com/guidepost/guidepost/auth"
)

// CreateSession writes a session and its first refresh token in one
// statement, so one round trip and one commit: a sign-up storm waits on
// commits, and an explicit transaction cost three more round trips (each a
// TLS record both ways when the database is reached over TLS).
func (s *Users) CreateSession(ctx context.Context, r auth.SessionRow, refreshHash []byte) error {
	// A suspended account gets no session (moderation suspends it and
	// revokes those it had in one transaction): no session row, so no
	// refresh token either.
	tag, err := s.db.exec(ctx, `WITH sess AS (
			INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at)
			SELECT $1, $2, $3, $4, $3 WHERE NOT EXISTS (SELECT 1 FROM users WHERE id = $2 AND suspended_at IS NOT NULL)
			RETURNING id
		)
		INSERT INTO refresh_tokens (hash, session_id, created_at) SELECT $5, id, $3 FROM sess`,
		r.ID, r.UserID, r.CreatedAt, r.ExpiresAt, refreshHash)
	if err != nil {
		return translate(err, "session")
	}
	if tag.RowsAffected() == 0 {
		return guidepost.Errorf(guidepost.EFORBIDDEN, "this account is suspended; write to the address GET /v1/about gives to appeal")
	}
	return nil
}

// RotateRefresh locks the token's row, so that of two refreshes racing
// with one token one rotates it and the other finds it used: within the
// grace it gets a pair of its own, after it the session is revoked.
func (s *Users) RotateRefresh(ctx context.Context, old, next []byte, rn auth.Renewal) (auth.SessionRow, auth.Rotation, error) {
	var r auth.SessionRow
	outcome := auth.Dead
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		var used, revoked, deleted *time.Time
		err := tx.QueryRow(ctx, `SELECT s.id::text, s.user_id::text, s.created_at, s.expires_at, t.used_at, s.revoked_at, u.deleted_at
			FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
			WHERE t.hash = $1 FOR UPDATE OF t`, old).
			Scan(&r.ID, &r.UserID, &r.CreatedAt, &r.ExpiresAt, &used, &revoked, &deleted)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil
		case err != nil:
			return translate(err, "session")
		case revoked != nil || deleted != nil || !rn.Now.Before(r.ExpiresAt):
			return nil
		case used != nil && !rn.Retry(*used):
			outcome = auth.Reused
			_, err := tx.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, r.ID, rn.Now)
			return translate(err, "session")
		case used != nil:
			outcome = auth.Retried
		default:
			outcome = auth.Rotated
			if _, err := tx.Exec(ctx, `UPDATE refresh_tokens SET used_at = $2 WHERE hash = $1`, old, rn.Now); err != nil {
				return translate(err, "session")
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO refresh_tokens (hash, session_id, created_at) VALUES ($1, $2, $3)`, next, r.ID, rn.Now); err != nil {
			return translate(err, "session")
		}
		r.ExpiresAt = rn.Until(r.CreatedAt)
		_, err = tx.Exec(ctx, `UPDATE sessions SET expires_at = $2, last_used_at = $3 WHERE id = $1`, r.ID, r.ExpiresAt, rn.Now)
		return translate(err, "session")
	})
	if err != nil {
		outcome = auth.Dead
	}
	return r, outcome, err
}

func (s *Users) RevokeSession(ctx context.Context, sessionID string, now time.Time) error {
	if !validUUID(sessionID) {
		return nil
	}
	_, err := s.db.Pool.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, sessionID, now)
	return translate(err, "session")
}

// SessionLive is the check every authenticated request pays: two
// primary-key probes in one statement, shared with the checks that arrive
// with it while session checks are started (sessions_batchcheck.go).
func (s *Users) SessionLive(ctx context.Context, c auth.Caller, now time.Time) (bool, error) {
	if !validUUID(c.UserID) || !validUUID(c.SessionID) {
		return false, nil
	}
	if k := s.checker.Load(); k != nil {
		if live, ok, err := k.submit(ctx, c, now); ok {
			return live, translate(err, "session")
		}
	}
	return sessionLive(ctx, s.db.Pool, c, now)
}

// sessionIsLive is true when the session in sid belongs to the user in
// uid, is neither revoked nor expired at at, and its account is not
// deleted: the one definition of a live session, which the session
// checks and the likes that check their own session (likes.go) share.
func sessionIsLive(sid, uid, at string) string {
	return `EXISTS (SELECT 1 FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.id = ` + sid + ` AND s.user_id = ` + uid + ` AND s.revoked_at IS NULL AND s.expires_at > ` + at + ` AND u.deleted_at IS NULL)`
}

// sessionLive checks one session by itself: one query.
func sessionLive(ctx context.Context, q rowQuerier, c auth.Caller, now time.Time) (bool, error) {
	var live bool
	err := q.QueryRow(ctx, `SELECT `+sessionIsLive("$1", "$2", "$3"), c.SessionID, c.UserID, now).Scan(&live)
	return live, translate(err, "session")
}

func (s *Users) SetPassword(ctx context.Context, userID, hash string, now time.Time) error {
	return s.db.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1 AND deleted_at IS NULL`, userID, hash); err != nil {
			return translate(err, "user")
		}
		return revokeAll(ctx, tx, userID, now)
	})
}

func revokeAll(ctx context.Context, tx pgx.Tx, userID string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL`, userID, now)
	return translate(err, "session")
}

// Upgrade also ends the guest's other sessions in its transaction: no
// request can slip in with a copy of a guest token once the account has
// a password.
func (s *Users) Upgrade(ctx context.Context, u auth.User, keep string, now time.Time) error {
	if !validUUID(keep) {
		keep = "00000000-0000-0000-0000-000000000000"
	}
	return s.db.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET email = $2, display_name = $3, password_hash = $4, guest = false
			WHERE id = $1 AND guest AND deleted_at IS NULL`, u.ID, u.Email, u.DisplayName, u.PasswordHash)
		if err != nil {
			return translate(err, "user")
		}
		if tag.RowsAffected() == 0 {
			return translate(pgx.ErrNoRows, "guest account")
		}
		_, err = tx.Exec(ctx, `UPDATE sessions SET revoked_at = $3 WHERE user_id = $1 AND id <> $2 AND revoked_at IS NULL`, u.ID, keep, now)
		return translate(err, "session")
	})
}
