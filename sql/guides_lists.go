package sql

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/guides"
)

// readByAuthor walks guides_author_newest_idx from the cursor down.
func (s *Guides) readByAuthor(ctx context.Context, q guides.MineQuery) ([]guides.Item, error) {
	if !validUUID(q.AuthorID) {
		return []guides.Item{}, nil
	}
	before := q.Before
	if before == "" {
		before = lastID
	}
	// The author's own list shows hidden guides too, labelled.
	rows, err := s.db.on(ctx).Query(ctx, `SELECT `+itemColumns+`, g.hidden_at, coalesce(g.hidden_reason, '')
		FROM (SELECT `+itemSource+`, hidden_at, hidden_reason FROM guides WHERE author_id = $1 AND id < $2::uuid ORDER BY id DESC LIMIT $3) g
		`+itemJoins+`
		ORDER BY g.id DESC`, q.AuthorID, before, q.Limit)
	if err != nil {
		return nil, translate(err, "guide")
	}
	items := []guides.Item{}
	for rows.Next() {
		var hiddenAt *time.Time
		var reason string
		it, err := scanItem(rows, &hiddenAt, &reason)
		if err != nil {
			rows.Close()
			return nil, translate(err, "guide")
		}
		it.Hidden = hold(hiddenAt, reason)
		items = append(items, it)
	}
	return items, translate(rows.Err(), "guide")
}

// readViewerStates reads, per guide, one primary-key probe of guide_likes and
// the counter shards: a page costs a few hundred index reads, one round
// trip.
func (s *Guides) readViewerStates(ctx context.Context, viewerID string, ids []string) (map[string]guides.LikeState, error) {
	out := make(map[string]guides.LikeState, len(ids))
	if !validUUID(viewerID) || len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.on(ctx).Query(ctx, `SELECT g.id::text,
			EXISTS (SELECT 1 FROM guide_likes l WHERE l.guide_id = g.id AND l.user_id = $2),
			g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint
		FROM guides g WHERE g.id = ANY($1::uuid[])`, ids, viewerID)
	if err != nil {
		return nil, translate(err, "guide")
	}
	var id string
	var st guides.LikeState
	_, err = pgx.ForEachRow(rows, []any{&id, &st.Liked, &st.LikeCount}, func() error {
		out[id] = st
		return nil
	})
	return out, translate(err, "guide")
}
