package sql

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/moderation"
)

// Moderation stores reports, holds and the audit log. A hold is a column
// of the guide or photo row (hidden_at), so the statement that sets it
// fires the tile triggers like any edit: every cache on every process
// drops the tiles it touched, in the same transaction.
type Moderation struct{ db *DB }

var _ moderation.Store = (*Moderation)(nil)

// NewModeration returns the PostgreSQL moderation store.
func NewModeration(db *DB) *Moderation { return &Moderation{db: db} }

// targetSQL reads a target's state; $1 is its id. Guides of an account
// being deleted, deleted photos and deleted accounts are not found.
var targetSQL = map[moderation.TargetType]string{
	moderation.TargetGuide: `SELECT g.author_id::text, g.title, g.hidden_at, coalesce(g.hidden_reason, ''), false
		FROM guides g JOIN users u ON u.id = g.author_id AND u.deleted_at IS NULL WHERE g.id = $1`,
	moderation.TargetPhoto: `SELECT m.owner_id::text, '', m.hidden_at, coalesce(m.hidden_reason, ''), false
		FROM media m JOIN users u ON u.id = m.owner_id AND u.deleted_at IS NULL WHERE m.id = $1 AND m.deleted_at IS NULL`,
	moderation.TargetUser: `SELECT u.id::text, u.display_name, NULL::timestamptz, '', u.suspended_at IS NOT NULL
		FROM users u WHERE u.id = $1 AND u.deleted_at IS NULL`,
}

// lockFor is how a transaction that changes a target locks its row: a
// deletion racing it waits for the commit, or it finds the row gone.
var lockFor = map[moderation.TargetType]string{
	moderation.TargetGuide: ` FOR NO KEY UPDATE OF g`, moderation.TargetPhoto: ` FOR NO KEY UPDATE OF m`,
	moderation.TargetUser: ` FOR NO KEY UPDATE OF u`,
}

func (s *Moderation) Target(ctx context.Context, t moderation.Target) (moderation.State, error) {
	return readTarget(ctx, s.db.Pool, t, "")
}

func readTarget(ctx context.Context, q rowQuerier, t moderation.Target, lock string) (moderation.State, error) {
	st := moderation.State{Target: t}
	query, ok := targetSQL[t.Type]
	if !ok || !validUUID(t.ID) {
		return st, translate(pgx.ErrNoRows, string(t.Type))
	}
	var hidden *time.Time
	err := q.QueryRow(ctx, query+lock, t.ID).Scan(&st.AuthorID, &st.Label, &hidden, &st.HiddenReason, &st.Suspended)
	if hidden != nil {
		st.HiddenAt = *hidden
	}
	return st, translate(err, string(t.Type))
}

const reportColumns = `id::text, reporter_id::text, target_type, target_id::text, reason, note, status,
	coalesce(outcome, ''), created_at, closed_at`

func scanReport(row pgx.Row) (moderation.Report, error) {
	var r moderation.Report
	var closed *time.Time
	err := row.Scan(&r.ID, &r.ReporterID, &r.Target.Type, &r.Target.ID, &r.Reason, &r.Note, &r.Status, &r.Outcome, &r.CreatedAt, &closed)
	if closed != nil {
		r.ClosedAt = *closed
	}
	return r, err
}

// File locks the target's row first, so that the reports on one target
// are counted one transaction at a time (two racing reports cannot both
// miss the threshold) and a deletion racing the report is seen.
func (s *Moderation) File(ctx context.Context, r moderation.Report, h moderation.HoldRule, hold moderation.Entry) (moderation.Report, bool, *moderation.Entry, error) {
	var out moderation.Report
	var created bool
	var held *moderation.Entry
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		st, err := readTarget(ctx, tx, r.Target, lockFor[r.Target.Type])
		if err != nil {
			return err
		}
		out, err = scanReport(tx.QueryRow(ctx, `INSERT INTO reports (id, reporter_id, target_type, target_id, reason, note, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (reporter_id, target_type, target_id) WHERE status = 'open' DO NOTHING
			RETURNING `+reportColumns, r.ID, r.ReporterID, r.Target.Type, r.Target.ID, r.Reason, r.Note, r.CreatedAt))
		if errors.Is(err, pgx.ErrNoRows) {
			out, err = scanReport(tx.QueryRow(ctx, `SELECT `+reportColumns+` FROM reports
				WHERE reporter_id = $1 AND target_type = $2 AND target_id = $3 AND status = 'open'`, r.ReporterID, r.Target.Type, r.Target.ID))
			return translate(err, "report")
		}
		if err != nil {
			return writeReportError(err)
		}
		created = true
		if h.Reporters <= 0 || st.Hidden() {
			return nil
		}
		held, err = holdByReports(ctx, tx, r.Target, h, hold)
		return err
	})
	if err != nil {
		return moderation.Report{}, false, nil, err
	}
	return out, created, held, nil
}

// writeReportError: a reporter deleted meanwhile fails the foreign key.
func writeReportError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23503" {
		return guidepost.Wrap(guidepost.EUNAUTHORIZED, err, "your account no longer exists")
	}
	return translate(err, "report")
}

// holdByReports hides the target when enough distinct counted accounts
// have open reports on it, and records the hold. Guests younger than
// h.GuestsBefore, suspended and deleted accounts do not count.
func holdByReports(ctx context.Context, tx pgx.Tx, t moderation.Target, h moderation.HoldRule, e moderation.Entry) (*moderation.Entry, error) {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(DISTINCT r.reporter_id) FROM reports r JOIN users u ON u.id = r.reporter_id
		WHERE r.target_type = $1 AND r.target_id = $2 AND r.status = 'open'
		  AND u.deleted_at IS NULL AND u.suspended_at IS NULL AND NOT (u.guest AND u.created_at > $3)`,
		t.Type, t.ID, h.GuestsBefore).Scan(&n)
	if err != nil || n < h.Reporters {
		return nil, translate(err, "report")
	}
	if _, err := setHidden(ctx, tx, t, e, "reports"); err != nil {
		return nil, err
	}
	e.Reports = n
	return &e, insertEntry(ctx, tx, e)
}

// holdTable names the table of a guide or photo target.
var holdTable = map[moderation.TargetType]string{moderation.TargetGuide: "guides", moderation.TargetPhoto: "media"}

// setHidden hides one guide or photo (cause: who holds it), or shows it
// again when cause is "", and tells whether the row changed.
func setHidden(ctx context.Context, tx pgx.Tx, t moderation.Target, e moderation.Entry, cause string) (bool, error) {
	var tag interface{ RowsAffected() int64 }
	var err error
	if cause == "" {
		tag, err = tx.Exec(ctx, `UPDATE `+holdTable[t.Type]+` SET hidden_at = NULL, hidden_reason = NULL, hidden_cause = NULL
			WHERE id = $1 AND hidden_at IS NOT NULL`, t.ID)
	} else {
		tag, err = tx.Exec(ctx, `UPDATE `+holdTable[t.Type]+` SET hidden_at = coalesce(hidden_at, $2), hidden_reason = $3, hidden_cause = $4
			WHERE id = $1`, t.ID, e.CreatedAt, e.Reason, cause)
	}
	if err != nil {
		return false, translate(err, string(t.Type))
	}
	return tag.RowsAffected() > 0, nil
}

func insertEntry(ctx context.Context, tx pgx.Tx, e moderation.Entry) error {
	_, err := tx.Exec(ctx, `INSERT INTO moderation_actions (id, moderator_id, action, target_type, target_id, target_author, reason, reports, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		e.ID, nullable(e.ModeratorID), e.Action, e.Target.Type, e.Target.ID, nullable(e.TargetAuthor), e.Reason, e.Reports, e.CreatedAt)
	return translate(err, "moderation action")
}

func (s *Moderation) ReportsBy(ctx context.Context, reporterID, before string, limit int) ([]moderation.Report, error) {
	if before == "" {
		before = lastID
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT `+reportColumns+` FROM reports
		WHERE reporter_id = $1 AND id < $2::uuid ORDER BY id DESC LIMIT $3`, reporterID, before, limit)
	if err != nil {
		return nil, translate(err, "report")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (moderation.Report, error) { return scanReport(row) })
	if out == nil {
		out = []moderation.Report{}
	}
	return out, translate(err, "report")
}

func (s *Moderation) Role(ctx context.Context, userID string) (moderation.Role, error) {
	var r moderation.Role
	if !validUUID(userID) {
		return r, translate(pgx.ErrNoRows, "user")
	}
	err := s.db.Pool.QueryRow(ctx, `SELECT moderator, suspended_at IS NOT NULL FROM users WHERE id = $1 AND deleted_at IS NULL`, userID).
		Scan(&r.Moderator, &r.Suspended)
	return r, translate(err, "user")
}

func (s *Moderation) SetModerator(ctx context.Context, email string, on bool) (string, error) {
	var id string
	err := s.db.Pool.QueryRow(ctx, `UPDATE users SET moderator = $2 WHERE lower(email) = lower($1) AND deleted_at IS NULL RETURNING id::text`,
		email, on).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", guidepost.Errorf(guidepost.ENOTFOUND, "no account has the email %q", email)
	}
	return id, translate(err, "user")
}
