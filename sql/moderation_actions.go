package sql

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/moderation"
)

// Apply locks the target (a removed one is gone already: only its
// reports and the log change), changes it, closes its open reports and
// records the action, in one transaction.
func (s *Moderation) Apply(ctx context.Context, e moderation.Entry) (moderation.Applied, error) {
	done := moderation.Applied{Entry: e}
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		if e.Action != moderation.Remove {
			if _, err := readTarget(ctx, tx, e.Target, lockFor[e.Target.Type]); err != nil {
				return err
			}
		}
		var err error
		if done.Hidden, done.Shown, err = applyAction(ctx, tx, e); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE reports SET status = 'closed', outcome = $3, closed_at = $4
			WHERE target_type = $1 AND target_id = $2 AND status = 'open'`, e.Target.Type, e.Target.ID, e.Action, e.CreatedAt)
		if err != nil {
			return translate(err, "report")
		}
		done.Entry.Reports = int(tag.RowsAffected())
		return insertEntry(ctx, tx, done.Entry)
	})
	if err != nil {
		return moderation.Applied{}, err
	}
	return done, nil
}

// applyAction changes the target; it returns the photos hidden and shown.
func applyAction(ctx context.Context, tx pgx.Tx, e moderation.Entry) (hidden, shown []string, err error) {
	photo := e.Target.Type == moderation.TargetPhoto
	switch e.Action {
	case moderation.Hide:
		_, err = setHidden(ctx, tx, e.Target, e, "moderator")
		if photo {
			hidden = []string{e.Target.ID}
		}
	case moderation.Restore:
		_, err = setHidden(ctx, tx, e.Target, e, "")
		if photo {
			shown = []string{e.Target.ID}
		}
	case moderation.Dismiss:
		// The moderator looked: an automatic hold lifts, their own stays.
		var lifted bool
		if holdTable[e.Target.Type] != "" {
			lifted, err = liftReportHold(ctx, tx, e.Target)
		}
		if lifted && photo {
			shown = []string{e.Target.ID}
		}
	case moderation.Suspend:
		hidden, err = suspend(ctx, tx, e)
	case moderation.Unsuspend:
		shown, err = unsuspend(ctx, tx, e.Target.ID)
	}
	return hidden, shown, err
}

func liftReportHold(ctx context.Context, tx pgx.Tx, t moderation.Target) (bool, error) {
	tag, err := tx.Exec(ctx, `UPDATE `+holdTable[t.Type]+` SET hidden_at = NULL, hidden_reason = NULL, hidden_cause = NULL
		WHERE id = $1 AND hidden_cause = 'reports'`, t.ID)
	return err == nil && tag.RowsAffected() > 0, translate(err, string(t.Type))
}

// suspend ends every session of the account (the per-request session
// check refuses its tokens from the commit on), and hides what it shows
// that nothing hides yet, with cause "suspension" so that unsuspend brings
// back exactly that.
func suspend(ctx context.Context, tx pgx.Tx, e moderation.Entry) ([]string, error) {
	id, now := e.Target.ID, e.CreatedAt
	if _, err := tx.Exec(ctx, `UPDATE users SET suspended_at = $2 WHERE id = $1 AND suspended_at IS NULL`, id, now); err != nil {
		return nil, translate(err, "user")
	}
	if _, err := tx.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL`, id, now); err != nil {
		return nil, translate(err, "session")
	}
	const hide = `SET hidden_at = $2, hidden_reason = $3, hidden_cause = 'suspension'`
	if _, err := tx.Exec(ctx, `UPDATE guides `+hide+` WHERE author_id = $1 AND hidden_at IS NULL`, id, now, e.Reason); err != nil {
		return nil, translate(err, "guide")
	}
	return queryIDs(ctx, tx, "media", `UPDATE media `+hide+`
		WHERE owner_id = $1 AND hidden_at IS NULL AND deleted_at IS NULL RETURNING id::text`, id, now, e.Reason)
}

func unsuspend(ctx context.Context, tx pgx.Tx, id string) ([]string, error) {
	if _, err := tx.Exec(ctx, `UPDATE users SET suspended_at = NULL WHERE id = $1`, id); err != nil {
		return nil, translate(err, "user")
	}
	const show = `SET hidden_at = NULL, hidden_reason = NULL, hidden_cause = NULL`
	if _, err := tx.Exec(ctx, `UPDATE guides `+show+` WHERE author_id = $1 AND hidden_cause = 'suspension'`, id); err != nil {
		return nil, translate(err, "guide")
	}
	return queryIDs(ctx, tx, "media", `UPDATE media `+show+`
		WHERE owner_id = $1 AND hidden_cause = 'suspension' AND deleted_at IS NULL RETURNING id::text`, id)
}

// queueSQL groups the open reports by target, oldest report first, after
// the cursor ($1 time, $2 type, $3 id; NULL for the first page), with the
// target as it stands (a deleted one has no author).
const queueSQL = `WITH q AS (
		SELECT target_type, target_id, count(DISTINCT reporter_id)::int AS reporters,
		       min(created_at) AS oldest, max(created_at) AS newest
		FROM reports WHERE status = 'open' GROUP BY 1, 2
	)
	SELECT q.target_type, q.target_id::text, q.reporters, q.oldest, q.newest,
		(SELECT array_agg(reason ORDER BY n DESC, reason) FROM (
			SELECT reason, count(*) AS n FROM reports r
			WHERE r.target_type = q.target_type AND r.target_id = q.target_id AND r.status = 'open' GROUP BY reason) x),
		coalesce(g.author_id, m.owner_id, u.id)::text, coalesce(g.title, u.display_name, ''),
		coalesce(g.hidden_at, m.hidden_at), coalesce(g.hidden_reason, m.hidden_reason, ''),
		coalesce(u.suspended_at IS NOT NULL, false)
	FROM q
	LEFT JOIN guides g ON q.target_type = 'guide' AND g.id = q.target_id
	LEFT JOIN media m ON q.target_type = 'photo' AND m.id = q.target_id AND m.deleted_at IS NULL
	LEFT JOIN users u ON q.target_type = 'user' AND u.id = q.target_id AND u.deleted_at IS NULL
	WHERE $1::timestamptz IS NULL OR (q.oldest, q.target_type, q.target_id) > ($1, $2, $3::uuid)
	ORDER BY q.oldest, q.target_type, q.target_id
	LIMIT $4`

func (s *Moderation) Queue(ctx context.Context, after *moderation.QueueCursor, limit int) ([]moderation.QueueItem, error) {
	var at *time.Time
	typ, id := "", lastID
	if after != nil {
		at, typ, id = &after.Oldest, string(after.Target.Type), after.Target.ID
	}
	rows, err := s.db.Pool.Query(ctx, queueSQL, at, typ, id, limit)
	if err != nil {
		return nil, translate(err, "report")
	}
	out := []moderation.QueueItem{}
	var it moderation.QueueItem
	var author *string
	var hidden *time.Time
	st := &it.State
	_, err = pgx.ForEachRow(rows, []any{&st.Type, &st.ID, &it.Reporters, &it.Oldest, &it.Newest, &it.Reasons,
		&author, &st.Label, &hidden, &st.HiddenReason, &st.Suspended}, func() error {
		item := it
		if author != nil {
			item.State.AuthorID = *author
		} else {
			item.State.Deleted = true
		}
		if hidden != nil {
			item.State.HiddenAt = *hidden
		}
		out = append(out, item)
		return nil
	})
	return out, translate(err, "report")
}

const entryColumns = `id::text, coalesce(moderator_id::text, ''), action, target_type, target_id::text,
	coalesce(target_author::text, ''), reason, reports, created_at`

func scanEntry(row pgx.Row) (moderation.Entry, error) {
	var e moderation.Entry
	err := row.Scan(&e.ID, &e.ModeratorID, &e.Action, &e.Target.Type, &e.Target.ID, &e.TargetAuthor, &e.Reason, &e.Reports, &e.CreatedAt)
	return e, err
}

func (s *Moderation) Audit(ctx context.Context, before string, limit int) ([]moderation.Entry, error) {
	if before == "" {
		before = lastID
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT `+entryColumns+` FROM moderation_actions
		WHERE id < $1::uuid ORDER BY id DESC LIMIT $2`, before, limit)
	if err != nil {
		return nil, translate(err, "moderation action")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (moderation.Entry, error) { return scanEntry(row) })
	if out == nil {
		out = []moderation.Entry{}
	}
	return out, translate(err, "moderation action")
}

func (s *Moderation) Entry(ctx context.Context, id string) (moderation.Entry, error) {
	if !validUUID(id) {
		return moderation.Entry{}, guidepost.Errorf(guidepost.ENOTFOUND, "moderation action not found")
	}
	e, err := scanEntry(s.db.Pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM moderation_actions WHERE id = $1`, id))
	return e, translate(err, "moderation action")
}
