package sql

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/auth"
)

var _ auth.SweepStore = (*Users)(nil)

// Each sweep statement deletes at most limit rows found by index, skipping
// rows another transaction holds, so it never waits on a refresh and
// never holds many locks for long.

func (s *Users) DeleteUsedRefreshTokens(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM refresh_tokens WHERE hash IN (
		SELECT hash FROM refresh_tokens WHERE used_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`, before, limit)
	return int(tag.RowsAffected()), translate(err, "refresh token")
}

func (s *Users) DeleteDeadSessions(ctx context.Context, now time.Time, limit int) (int, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM sessions WHERE id IN (
		SELECT id FROM sessions WHERE expires_at <= $1 OR revoked_at IS NOT NULL LIMIT $2 FOR UPDATE SKIP LOCKED)`, now, limit)
	return int(tag.RowsAffected()), translate(err, "session")
}

// idleGuest is what makes a guest removable: unused since $1 and owning
// nothing. Anything else that refers to it (idempotency keys) goes with it.
const idleGuest = `u.guest AND u.deleted_at IS NULL AND u.created_at < $1
	AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND coalesce(s.last_used_at, s.created_at) >= $1)
	AND NOT EXISTS (SELECT 1 FROM guides g WHERE g.author_id = u.id)
	AND NOT EXISTS (SELECT 1 FROM media m WHERE m.owner_id = u.id)
	AND NOT EXISTS (SELECT 1 FROM guide_likes l WHERE l.user_id = u.id)
	AND NOT EXISTS (SELECT 1 FROM uploads p WHERE p.owner_id = u.id)`

// DeleteIdleGuests locks its candidates first, then deletes those still
// idle in a second statement, which reads anew: a guide or like whose
// insert passed its foreign-key check before the lock is seen, and one
// after it waits for the lock and then fails on the missing account,
// so nothing a guest owns is ever deleted with it.
func (s *Users) DeleteIdleGuests(ctx context.Context, idleSince time.Time, limit int) (int, error) {
	var n int
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		ids, err := queryIDs(ctx, tx, "user", `SELECT u.id::text FROM users u WHERE `+idleGuest+`
			ORDER BY u.created_at LIMIT $2 FOR UPDATE SKIP LOCKED`, idleSince, limit)
		if err != nil || len(ids) == 0 {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM users u WHERE u.id = ANY($2::uuid[]) AND `+idleGuest, idleSince, ids)
		n = int(tag.RowsAffected())
		return translate(err, "user")
	})
	return n, err
}
