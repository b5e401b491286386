package sql

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/auth/deletion"
)

// Accounts removes what a deleted account owns.
type Accounts struct{ db *DB }

var _ deletion.Store = (*Accounts)(nil)

// NewAccounts returns the PostgreSQL account store.
func NewAccounts(db *DB) *Accounts { return &Accounts{db: db} }

func (s *Accounts) MarkDeleted(ctx context.Context, userID string, now time.Time) error {
	if !validUUID(userID) {
		return translate(pgx.ErrNoRows, "user")
	}
	return s.db.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET deleted_at = $2, email = NULL, password_hash = NULL
			WHERE id = $1 AND deleted_at IS NULL`, userID, now)
		if err != nil {
			return translate(err, "user")
		}
		if tag.RowsAffected() == 0 {
			return translate(pgx.ErrNoRows, "user")
		}
		return revokeAll(ctx, tx, userID, now)
	})
}

// RemoveLikes deletes the likes and, in the same statement, adds minus the
// number removed from each guide to one of its counter shards, so every
// count stays exact (base + shards = rows). The shards' updated_at moves,
// so every API process's like poll picks the new counts up within a second.
func (s *Accounts) RemoveLikes(ctx context.Context, userID string) error {
	_, err := s.db.exec(ctx, `WITH del AS (
			DELETE FROM guide_likes WHERE user_id = $1 RETURNING guide_id
		), per AS (
			SELECT guide_id, count(*) AS n FROM del GROUP BY guide_id
		)
		INSERT INTO guide_like_shards AS s (guide_id, shard, n, updated_at, tile)
		SELECT guide_id, $2, -n, clock_timestamp(), `+shardTile("per.guide_id")+` FROM per ORDER BY guide_id
		ON CONFLICT (guide_id, shard) DO UPDATE SET n = s.n + excluded.n, updated_at = clock_timestamp()`,
		userID, rand.IntN(LikeShards))
	return writeError(err)
}

func (s *Accounts) RemoveGuides(ctx context.Context, userID string) error {
	_, err := s.db.exec(ctx, `DELETE FROM guides WHERE author_id = $1`, userID)
	return translate(err, "guide")
}

func (s *Accounts) RemoveUser(ctx context.Context, userID string) error {
	_, err := s.db.exec(ctx, `DELETE FROM users WHERE id = $1 AND deleted_at IS NOT NULL`, userID)
	return translate(err, "user")
}

func (s *Accounts) Deleted(ctx context.Context, before time.Time, limit int) ([]string, error) {
	return queryIDs(ctx, s.db.Pool, "user", `SELECT id::text FROM users WHERE deleted_at IS NOT NULL AND deleted_at < $1
		ORDER BY deleted_at LIMIT $2`, before, limit)
}
