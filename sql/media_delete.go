package sql

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// MarkDeleted hides the photo and takes it out of its guides in one
// transaction.
func (s *Media) MarkDeleted(ctx context.Context, id string, now time.Time) error {
	if !validUUID(id) {
		return translate(pgx.ErrNoRows, "media")
	}
	return s.db.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE media SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL`, id, now)
		if err != nil {
			return translate(err, "media")
		}
		if tag.RowsAffected() == 0 {
			return translate(pgx.ErrNoRows, "media")
		}
		return detachMedia(ctx, tx, `SELECT $1::uuid`, id)
	})
}

// MarkOwnerDeleted hides every photo of ownerID and returns all its deleted
// photos that still have a row.
func (s *Media) MarkOwnerDeleted(ctx context.Context, ownerID string, now time.Time) ([]string, error) {
	if !validUUID(ownerID) {
		return nil, nil
	}
	var ids []string
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE media SET deleted_at = $2 WHERE owner_id = $1 AND deleted_at IS NULL`, ownerID, now); err != nil {
			return translate(err, "media")
		}
		if err := detachMedia(ctx, tx, `SELECT id FROM media WHERE owner_id = $1`, ownerID); err != nil {
			return err
		}
		var err error
		ids, err = queryIDs(ctx, tx, "media", `SELECT id::text FROM media WHERE owner_id = $1 ORDER BY id`, ownerID)
		return err
	})
	return ids, err
}

// detachMedia removes the photos that ids (a query of $1) selects from
// every guide and touches those guides, so that the tile trigger bumps
// their tiles: a guide whose cover was one of them shows its next photo.
// Touching every such guide, not only those whose cover changed, costs a
// tile bump for a guide whose list entry did not change: harmless.
func detachMedia(ctx context.Context, tx pgx.Tx, ids string, arg string) error {
	_, err := tx.Exec(ctx, `WITH gone AS (
			DELETE FROM guide_media WHERE media_id IN (`+ids+`) RETURNING guide_id
		)
		UPDATE guides SET updated_at = updated_at WHERE id IN (SELECT guide_id FROM gone)`, arg)
	return translate(err, "media")
}

// Deleted uses media_deleted_idx.
func (s *Media) Deleted(ctx context.Context, before time.Time, limit int) ([]string, error) {
	return queryIDs(ctx, s.db.Pool, "media", `SELECT id::text FROM media WHERE deleted_at IS NOT NULL AND deleted_at < $1
		ORDER BY deleted_at LIMIT $2`, before, limit)
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// queryIDs runs a query that selects one text column of ids.
func queryIDs(ctx context.Context, q querier, what, query string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, translate(err, what)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, translate(err, what)
}

// Purge deletes only a row marked deleted: a purge task can never remove a
// live photo.
func (s *Media) Purge(ctx context.Context, id string) error {
	if !validUUID(id) {
		return nil
	}
	_, err := s.db.exec(ctx, `DELETE FROM media WHERE id = $1 AND deleted_at IS NOT NULL`, id)
	return translate(err, "media")
}
