package sql

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/guides"
)

// LikeShards is how many counter rows a guide's likes are spread over. A
// like increments one at random, so concurrent likes of a hot guide wait on
// a sixteenth of each other instead of queueing on one row lock (measured:
// see the report in guides_likes_test.go).
const LikeShards = 16

// Like inserts the (guide, user) row and, only when that insert happened,
// increments a counter shard: one statement, one round trip, atomic. A
// double tap's second insert waits for the first, then does nothing.
func (s *Guides) Like(ctx context.Context, guideID, userID string, at time.Time) (guides.LikeState, error) {
	if !validUUID(guideID) {
		return guides.LikeState{}, translate(pgx.ErrNoRows, "guide")
	}
	var st guides.LikeState
	err := s.db.Pool.QueryRow(ctx, `WITH ins AS (
			INSERT INTO guide_likes (guide_id, user_id, created_at) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING RETURNING guide_id
		), bump AS (
			INSERT INTO guide_like_shards AS s (guide_id, shard, n) SELECT guide_id, $4, 1 FROM ins
			-- clock_timestamp, not now(): a like that waited for the shard lock
			-- must carry a stamp the once-a-second poll has not passed yet.
			ON CONFLICT (guide_id, shard) DO UPDATE SET n = s.n + 1, updated_at = clock_timestamp()
			RETURNING 1
		)
		SELECT g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint
		       + (SELECT count(*) FROM bump)
		FROM guides g WHERE g.id = $1`, guideID, userID, at, rand.IntN(LikeShards)).Scan(&st.LikeCount)
	if err != nil {
		return guides.LikeState{}, writeError(err)
	}
	st.Liked = true
	return st, nil
}

// Unlike deletes the row and, only when it existed, decrements a shard.
func (s *Guides) Unlike(ctx context.Context, guideID, userID string) (guides.LikeState, error) {
	if !validUUID(guideID) {
		return guides.LikeState{}, translate(pgx.ErrNoRows, "guide")
	}
	var st guides.LikeState
	err := s.db.Pool.QueryRow(ctx, `WITH del AS (
			DELETE FROM guide_likes WHERE guide_id = $1 AND user_id = $2 RETURNING guide_id
		), bump AS (
			INSERT INTO guide_like_shards AS s (guide_id, shard, n) SELECT guide_id, $3, -1 FROM del
			ON CONFLICT (guide_id, shard) DO UPDATE SET n = s.n - 1, updated_at = clock_timestamp()
			RETURNING 1
		)
		SELECT g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint
		       - (SELECT count(*) FROM bump)
		FROM guides g WHERE g.id = $1`, guideID, userID, rand.IntN(LikeShards)).Scan(&st.LikeCount)
	if err != nil {
		return guides.LikeState{}, writeError(err)
	}
	return st, nil
}

// LikeCountsSince returns the exact like count of every guide liked or
// unliked since since (by the database's clock), and the database's time
// of the reading, for the next call's since. A like stamps its shard with
// its transaction's start and may commit a little later: callers overlap
// their windows by a few seconds.
func (s *Guides) LikeCountsSince(ctx context.Context, since time.Time) (map[string]int64, time.Time, error) {
	var ids []string
	var counts []int64
	var now time.Time
	err := s.db.Pool.QueryRow(ctx, `SELECT statement_timestamp(), coalesce(array_agg(g.id::text), '{}'),
			coalesce(array_agg(g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint), '{}')
		FROM guides g
		WHERE g.id IN (SELECT guide_id FROM guide_like_shards WHERE updated_at > $1)`, since).Scan(&now, &ids, &counts)
	if err != nil {
		return nil, time.Time{}, translate(err, "guide")
	}
	out := make(map[string]int64, len(ids))
	for i, id := range ids {
		out[id] = counts[i]
	}
	return out, now, nil
}
