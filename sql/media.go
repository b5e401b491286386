package sql

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/worker"
)

// Media stores photo rows.
type Media struct {
	db       *DB
	replicas bool // photo reads may go to replicas (the API's store)
}

var (
	_ media.Store   = (*Media)(nil)
	_ worker.Locker = (*Media)(nil)
)

// NewMedia returns the PostgreSQL media store; every read is on the primary.
func NewMedia(db *DB) *Media { return &Media{db: db} }

// ReadingReplicas is the store whose photo reads (Get, ByOwner, GetMany)
// go to a replica that has replayed the caller's own writes: the API's.
// The worker keeps reading the primary: a photo it was just handed may
// not have reached any replica yet.
func (s *Media) ReadingReplicas() *Media { return &Media{db: s.db, replicas: true} }

// photoRead runs fn on a replica when this store may, else on the primary.
func (s *Media) photoRead(ctx context.Context, fn func(context.Context) error) error {
	if !s.replicas {
		return fn(ctx)
	}
	return s.db.read(ctx, 0, fn)
}

const mediaColumns = `id::text, owner_id::text, status, content_type, bytes, width, height, sha256,
	coalesce(thumbhash, ''), coalesce(failure, ''), coalesce(failure_reason, ''), attempts,
	created_at, updated_at, processed_at, taken_at, taken_lat, taken_lng, marker, hidden_at, coalesce(hidden_reason, ''), variants`

func scanMedia(row pgx.Row) (media.Media, error) {
	var m media.Media
	var processed, taken, hidden *time.Time
	var lat, lng *float64
	err := row.Scan(&m.ID, &m.OwnerID, &m.Status, &m.ContentType, &m.Bytes, &m.Width, &m.Height, &m.SHA256,
		&m.ThumbHash, &m.Failure, &m.FailureReason, &m.Attempts, &m.CreatedAt, &m.UpdatedAt, &processed,
		&taken, &lat, &lng, &m.Marker, &hidden, &m.HiddenReason, (*variantsColumn)(&m.Variants))
	if hidden != nil {
		m.HiddenAt = *hidden
	}
	if processed != nil {
		m.ProcessedAt = *processed
	}
	if taken != nil {
		m.Capture.TakenAt = *taken
	}
	if lat != nil && lng != nil {
		m.Capture.HasGPS, m.Capture.Lat, m.Capture.Lng = true, *lat, *lng
	}
	return m, translate(err, "media")
}

// Create inserts a new row under lockOwner, once admit allows it; the
// unique index on (owner_id, sha256) makes a second upload of the same
// bytes ECONFLICT, whoever checked first.
func (s *Media) Create(ctx context.Context, m media.Media, admit func(media.Usage) error) error {
	return s.db.InTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwner(ctx, tx, m.OwnerID); err != nil {
			return err
		}
		if admit != nil {
			u, err := usage(ctx, tx, m.OwnerID, m.CreatedAt, m.ID)
			if err != nil {
				return err
			}
			if err := admit(u); err != nil {
				return err
			}
		}
		taken, lat, lng := captureArgs(m.Capture)
		_, err := tx.Exec(ctx,
			`INSERT INTO media (id, owner_id, status, content_type, bytes, width, height, sha256, created_at, updated_at,
			                    taken_at, taken_lat, taken_lng)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			m.ID, m.OwnerID, m.Status, m.ContentType, m.Bytes, m.Width, m.Height, m.SHA256, m.CreatedAt, m.UpdatedAt,
			taken, lat, lng)
		return translate(err, "media")
	})
}

// Usage counts an owner's rows through the (owner_id, sha256) index, and
// its open uploads through uploads_owner_idx.
func (s *Media) Usage(ctx context.Context, ownerID, mediaID string, now time.Time) (media.Usage, error) {
	if !validUUID(ownerID) {
		return media.Usage{}, nil
	}
	if !validUUID(mediaID) {
		mediaID = lastID
	}
	return usage(ctx, s.db.Pool, ownerID, now, mediaID)
}

func (s *Media) Get(ctx context.Context, id string) (media.Media, error) {
	if !validUUID(id) {
		return media.Media{}, translate(pgx.ErrNoRows, "media")
	}
	var m media.Media
	err := s.photoRead(ctx, func(ctx context.Context) (err error) {
		m, err = scanMedia(s.db.on(ctx).QueryRow(ctx, `SELECT `+mediaColumns+` FROM media WHERE id = $1 AND deleted_at IS NULL`, id))
		return err
	})
	return m, err
}

func (s *Media) BySHA256(ctx context.Context, ownerID, sha256 string) (media.Media, error) {
	return scanMedia(s.db.Pool.QueryRow(ctx,
		`SELECT `+mediaColumns+` FROM media WHERE owner_id = $1 AND sha256 = $2 AND deleted_at IS NULL`, ownerID, sha256))
}

// Start is one statement so that two workers racing on a photo both see a
// consistent attempt count; a finished row falls through to a plain read.
func (s *Media) Start(ctx context.Context, id string, now time.Time) (media.Media, error) {
	if !validUUID(id) {
		return media.Media{}, translate(pgx.ErrNoRows, "media")
	}
	m, err := scanMedia(s.db.Pool.QueryRow(ctx,
		`UPDATE media SET status = 'processing', attempts = attempts + 1, updated_at = $2
		 WHERE id = $1 AND status IN ('pending', 'processing') AND deleted_at IS NULL
		 RETURNING `+mediaColumns, id, now))
	if guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		return m, err
	}
	return s.Get(ctx, id)
}

// captureArgs are a capture's columns: NULL for what the photo lacks.
func captureArgs(c photo.Capture) (taken *time.Time, lat, lng *float64) {
	if !c.TakenAt.IsZero() {
		taken = &c.TakenAt
	}
	if c.HasGPS {
		lat, lng = &c.Lat, &c.Lng
	}
	return taken, lat, lng
}

func (s *Media) Finish(ctx context.Context, id, thumbHash string, c photo.Capture, now time.Time) error {
	taken, lat, lng := captureArgs(c)
	_, err := s.db.exec(ctx,
		`UPDATE media SET status = 'ready', thumbhash = $2, failure = NULL, failure_reason = NULL, processed_at = $3, updated_at = $3,
		        taken_at = $4, taken_lat = $5, taken_lng = $6, marker = true
		 WHERE id = $1 AND status IN ('pending', 'processing')`, id, thumbHash, now, taken, lat, lng)
	return translate(err, "media")
}

// MarkerStored records the marker of a photo made ready before markers.
func (s *Media) MarkerStored(ctx context.Context, id string) error {
	_, err := s.db.exec(ctx, `UPDATE media SET marker = true WHERE id = $1 AND status = 'ready'`, id)
	return translate(err, "media")
}

// VariantsStored records the variants of a photo not deleted.
func (s *Media) VariantsStored(ctx context.Context, id string, vs []media.Variant) error {
	doc, err := variantsColumn(vs).text()
	if err != nil {
		return err
	}
	_, err = s.db.Pool.Exec(ctx, `UPDATE media SET variants = $2::jsonb, marker = true WHERE id = $1 AND deleted_at IS NULL`, id, doc)
	return translate(err, "media")
}

// WithoutVariants uses media_unvaried_idx (partial, like the marker's).
func (s *Media) WithoutVariants(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.Pool.Query(ctx,
		`SELECT id::text FROM media WHERE status = 'ready' AND variants IS NULL AND deleted_at IS NULL ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, translate(err, "media")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, translate(err, "media")
}

// WithoutMarker uses media_markerless_idx (partial: it holds only the
// photos still to do).
func (s *Media) WithoutMarker(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.Pool.Query(ctx,
		`SELECT id::text FROM media WHERE status = 'ready' AND NOT marker AND deleted_at IS NULL ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, translate(err, "media")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, translate(err, "media")
}

func (s *Media) Fail(ctx context.Context, id, reason, failure string, now time.Time) error {
	_, err := s.db.exec(ctx,
		`UPDATE media SET status = 'failed', failure_reason = $2, failure = $3, processed_at = $4, updated_at = $4
		 WHERE id = $1 AND status IN ('pending', 'processing')`, id, reason, failure, now)
	return translate(err, "media")
}

// Retry is one conditional statement, so that of two uploads retrying the
// same failed photo exactly one resets it.
func (s *Media) Retry(ctx context.Context, id string, now time.Time) (media.Media, error) {
	if !validUUID(id) {
		return media.Media{}, translate(pgx.ErrNoRows, "failed media")
	}
	m, err := scanMedia(s.db.Pool.QueryRow(ctx,
		`UPDATE media SET status = 'pending', attempts = 0, failure = NULL, failure_reason = NULL,
		        thumbhash = NULL, processed_at = NULL, updated_at = $2
		 WHERE id = $1 AND status = 'failed' AND deleted_at IS NULL
		 RETURNING `+mediaColumns, id, now))
	if err == nil {
		s.db.noteWrite(ctx)
	}
	return m, err
}

// Stale uses media_unfinished_idx (partial, on updated_at).
func (s *Media) Stale(ctx context.Context, before time.Time, limit int) ([]media.Media, error) {
	return s.listOn(ctx, `SELECT `+mediaColumns+` FROM media
		 WHERE status IN ('pending', 'processing') AND updated_at < $1 AND deleted_at IS NULL
		 ORDER BY updated_at LIMIT $2`, before, limit)
}

func (s *Media) Touch(ctx context.Context, id string, now time.Time) error {
	_, err := s.db.exec(ctx,
		`UPDATE media SET updated_at = $2 WHERE id = $1 AND status IN ('pending', 'processing')`, id, now)
	return translate(err, "media")
}

func (s *Media) Existing(ctx context.Context, ids []string) (map[string]bool, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if validUUID(id) {
			valid = append(valid, id)
		}
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT id::text FROM media WHERE id = ANY($1::uuid[])`, valid)
	if err != nil {
		return nil, translate(err, "media")
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, translate(err, "media")
	}
	out := make(map[string]bool, len(found))
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// sweepLockKey is the advisory lock that makes one media sweeper run at a
// time across every worker process.
const sweepLockKey = 72_003

// Exclusively runs fn while holding the fleet-wide sweep lock, or returns
// false at once when another process holds it. The lock is a session lock on
// a connection held for the run: if the process dies, PostgreSQL ends the
// session and frees the lock, so a crashed sweeper never blocks the fleet.
func (s *Media) Exclusively(ctx context.Context, fn func(context.Context) error) (ran bool, err error) {
	conn, err := s.db.Pool.Acquire(ctx)
	if err != nil {
		return false, translate(err, "sweep lock")
	}
	defer conn.Release()
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, sweepLockKey).Scan(&got); err != nil || !got {
		return false, translate(err, "sweep lock")
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, uerr := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, sweepLockKey); uerr != nil {
			// A session that cannot unlock must not go back to the pool
			// still holding the lock.
			conn.Conn().Close(uctx)
		}
	}()
	return true, fn(ctx)
}

// ByOwner walks media_owner_newest_idx from before down.
func (s *Media) ByOwner(ctx context.Context, ownerID, before string, limit int) ([]media.Media, error) {
	if !validUUID(ownerID) {
		return nil, nil
	}
	if before == "" {
		before = lastID
	}
	return s.list(ctx, `SELECT `+mediaColumns+` FROM media
		WHERE owner_id = $1 AND deleted_at IS NULL AND id < $2::uuid ORDER BY id DESC LIMIT $3`, ownerID, before, limit)
}

func (s *Media) GetMany(ctx context.Context, ids []string) ([]media.Media, error) {
	return s.list(ctx, `SELECT `+mediaColumns+` FROM media WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`, ids)
}

func (s *Media) list(ctx context.Context, query string, args ...any) (out []media.Media, err error) {
	err = s.photoRead(ctx, func(ctx context.Context) error { out, err = s.listOn(ctx, query, args...); return err })
	return out, err
}

func (s *Media) listOn(ctx context.Context, query string, args ...any) ([]media.Media, error) {
	rows, err := s.db.on(ctx).Query(ctx, query, args...)
	if err != nil {
		return nil, translate(err, "media")
	}
	defer rows.Close()
	var out []media.Media
	for rows.Next() {
		m, err := scanMedia(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, translate(rows.Err(), "media")
}
