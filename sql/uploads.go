package sql

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

// Uploads stores direct uploads.
type Uploads struct{ db *DB }

var _ media.Uploads = (*Uploads)(nil)

// NewUploads returns the PostgreSQL direct-upload store.
func NewUploads(db *DB) *Uploads { return &Uploads{db: db} }

const uploadColumns = `id::text, owner_id::text, media_id::text, retry, object_key, s3_upload_id, bytes, sha256,
	content_type, part_size, part_sha256, state, created_at, updated_at, expires_at`

func scanUpload(row pgx.Row) (media.Upload, error) {
	var u media.Upload
	err := row.Scan(&u.ID, &u.OwnerID, &u.MediaID, &u.Retry, &u.Key, &u.StoreID, &u.Bytes, &u.SHA256,
		&u.Type, &u.PartSize, &u.PartSHA256, &u.State, &u.Created, &u.Updated, &u.Expires)
	return u, translate(err, "upload")
}

// CreateUpload serialises an owner's creates, and its photo inserts, on
// lockOwner, so the counts admit reads stay true until the insert.
func (s *Uploads) CreateUpload(ctx context.Context, u media.Upload, since time.Time, admit func(media.UploadCounts) error) error {
	return s.db.InTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwner(ctx, tx, u.OwnerID); err != nil {
			return err
		}
		var c media.UploadCounts
		err := tx.QueryRow(ctx,
			`SELECT count(*) FILTER (WHERE state IN ('open', 'completing') AND expires_at > $2),
			        coalesce(sum(bytes) FILTER (WHERE created_at > $3), 0)
			 FROM uploads WHERE owner_id = $1 AND created_at > least($2 - interval '30 days', $3)`,
			u.OwnerID, u.Created, since).Scan(&c.Open, &c.DayBytes)
		if err != nil {
			return translate(err, "upload")
		}
		if c.Usage, err = usage(ctx, tx, u.OwnerID, u.Created, u.MediaID); err != nil {
			return err
		}
		if err := admit(c); err != nil {
			return err
		}
		_, err = tx.Exec(ctx,
			`INSERT INTO uploads (id, owner_id, media_id, retry, object_key, s3_upload_id, bytes, sha256,
			                      content_type, part_size, part_sha256, state, created_at, updated_at, expires_at)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
			u.ID, u.OwnerID, u.MediaID, u.Retry, u.Key, u.StoreID, u.Bytes, u.SHA256,
			u.Type, u.PartSize, u.PartSHA256, u.State, u.Created, u.Updated, u.Expires)
		return translate(err, "upload")
	})
}

// lockOwner serialises, until the transaction ends, everything that adds
// to what an owner stores (photo rows, direct uploads), so a quota read
// under it stays true until the insert. It also holds the user's row FOR
// SHARE, which account deletion's UPDATE waits for: an account marked
// deleted is refused here, and one being marked waits for this insert to
// commit, so the purge that follows sees what it added.
func lockOwner(ctx context.Context, tx pgx.Tx, ownerID string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('uploads/' || $1, 0))`, ownerID); err != nil {
		return translate(err, "upload")
	}
	var live bool
	err := tx.QueryRow(ctx, `SELECT deleted_at IS NULL FROM users WHERE id = $1 FOR SHARE`, ownerID).Scan(&live)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return translate(err, "user")
	}
	if !live {
		return guidepost.Errorf(guidepost.EUNAUTHORIZED, "the account was deleted")
	}
	return nil
}

// usage reads what an owner stores and what its uploads open at now would
// add, leaving out the upload of mediaID (the one being completed). An
// upload that retries a failed photo adds no row and is not counted.
func usage(ctx context.Context, q rowQuerier, ownerID string, now time.Time, mediaID string) (media.Usage, error) {
	var u media.Usage
	err := q.QueryRow(ctx,
		`SELECT (SELECT count(*) FROM media WHERE owner_id = $1),
		        (SELECT coalesce(sum(bytes), 0)::bigint FROM media WHERE owner_id = $1),
		        count(*), coalesce(sum(bytes), 0)::bigint
		 FROM uploads WHERE owner_id = $1 AND state IN ('open', 'completing') AND expires_at > $2
		   AND NOT retry AND media_id <> $3::uuid`, ownerID, now, mediaID).Scan(&u.Photos, &u.Bytes, &u.Open, &u.OpenBytes)
	return u, translate(err, "media")
}

func (s *Uploads) GetUpload(ctx context.Context, id string) (media.Upload, error) {
	if !validUUID(id) {
		return media.Upload{}, translate(pgx.ErrNoRows, "upload")
	}
	return scanUpload(s.db.Pool.QueryRow(ctx, `SELECT `+uploadColumns+` FROM uploads WHERE id = $1`, id))
}

// ClaimUpload is one conditional statement, so of two complete calls on one
// upload exactly one proceeds.
func (s *Uploads) ClaimUpload(ctx context.Context, id string, now, staleBefore time.Time) (media.Upload, error) {
	if !validUUID(id) {
		return media.Upload{}, translate(pgx.ErrNoRows, "upload")
	}
	u, err := scanUpload(s.db.Pool.QueryRow(ctx,
		`UPDATE uploads SET state = 'completing', updated_at = $2
		 WHERE id = $1 AND (state = 'open' OR state = 'completing' AND updated_at < $3)
		 RETURNING `+uploadColumns, id, now, staleBefore))
	if guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		return u, err
	}
	if u, err = s.GetUpload(ctx, id); err != nil {
		return u, err
	}
	return u, guidepost.Errorf(guidepost.ECONFLICT, "the upload is %s: another request is completing it; retry in a moment", u.State)
}

func (s *Uploads) SetUploadState(ctx context.Context, id string, from, to media.UploadState, mediaID string, now time.Time) error {
	tag, err := s.db.exec(ctx,
		`UPDATE uploads SET state = $3, media_id = $4, updated_at = $5 WHERE id = $1 AND state = $2`,
		id, from, to, mediaID, now)
	if err != nil {
		return translate(err, "upload")
	}
	if tag.RowsAffected() == 0 {
		return translate(pgx.ErrNoRows, "upload in state "+string(from))
	}
	return nil
}

// ExpiredUploads uses uploads_unfinished_idx.
func (s *Uploads) ExpiredUploads(ctx context.Context, before time.Time, limit int) ([]media.Upload, error) {
	rows, err := s.db.Pool.Query(ctx,
		`SELECT `+uploadColumns+` FROM uploads
		 WHERE state IN ('open', 'completing') AND expires_at < $1 ORDER BY expires_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, translate(err, "upload")
	}
	return collectUploads(rows)
}

// rowQuerier is a pool or a transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// OwnerUploads uses uploads_owner_idx.
func (s *Uploads) OwnerUploads(ctx context.Context, ownerID string) ([]media.Upload, error) {
	if !validUUID(ownerID) {
		return nil, nil
	}
	rows, err := s.db.Pool.Query(ctx,
		`SELECT `+uploadColumns+` FROM uploads WHERE owner_id = $1 AND state IN ('open', 'completing') ORDER BY created_at`, ownerID)
	if err != nil {
		return nil, translate(err, "upload")
	}
	return collectUploads(rows)
}

func collectUploads(rows pgx.Rows) ([]media.Upload, error) {
	defer rows.Close()
	var out []media.Upload
	for rows.Next() {
		u, err := scanUpload(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, translate(rows.Err(), "upload")
}

func (s *Uploads) DeleteUploads(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.exec(ctx,
		`DELETE FROM uploads WHERE created_at < $1 AND state IN ('completed', 'aborted')`, before)
	return tag.RowsAffected(), translate(err, "upload")
}
