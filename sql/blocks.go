package sql

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/blocks"
)

// Blocks stores who blocks whom (user_blocks in migrations/schema.sql).
type Blocks struct{ db *DB }

var (
	_ blocks.Store = (*Blocks)(nil)
	_ blocks.Feed  = (*Blocks)(nil)
)

// NewBlocks returns the PostgreSQL block store.
func NewBlocks(db *DB) *Blocks { return &Blocks{db: db} }

// Block takes a lock on the blocker (an advisory one: a row lock on the
// user would wait on their likes), so that the count it checks against
// max holds until it commits.
func (s *Blocks) Block(ctx context.Context, blockerID, blockedID, id string, at time.Time, max int) (blocks.Block, error) {
	if !validUUID(blockedID) {
		return blocks.Block{}, blocks.ErrNoSuchUser
	}
	b := blocks.Block{User: blocks.User{ID: blockedID}}
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('user_blocks:' || $1, 0))`, blockerID); err != nil {
			return err
		}
		var n int
		var existing *string
		var created *time.Time
		err := tx.QueryRow(ctx, `SELECT u.display_name, b.id::text, b.created_at,
				(SELECT count(*) FROM user_blocks c WHERE c.blocker_id = $1)::int
			FROM users u LEFT JOIN user_blocks b ON b.blocker_id = $1 AND b.blocked_id = u.id
			WHERE u.id = $2 AND u.deleted_at IS NULL`, blockerID, blockedID).Scan(&b.User.DisplayName, &existing, &created, &n)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return blocks.ErrNoSuchUser
		case err != nil:
			return err
		case existing != nil:
			b.ID, b.CreatedAt = *existing, *created
			return nil
		case n >= max:
			return blocks.ErrTooMany(max)
		}
		b.ID, b.CreatedAt = id, at
		_, err = tx.Exec(ctx, `INSERT INTO user_blocks (blocker_id, blocked_id, id, created_at) VALUES ($1, $2, $3, $4)`,
			blockerID, blockedID, id, at)
		return err
	})
	if err != nil {
		return blocks.Block{}, blockError(err)
	}
	return b, nil
}

// blockError names the side whose account went away meanwhile.
func blockError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23503" {
		if pgErr.ConstraintName == "user_blocks_blocked_id_fkey" {
			return blocks.ErrNoSuchUser
		}
		return guidepost.Wrap(guidepost.EUNAUTHORIZED, err, "your account no longer exists")
	}
	return translate(err, "user")
}

// Unblock deletes the block; with none, an id that names no live account
// is ENOTFOUND.
func (s *Blocks) Unblock(ctx context.Context, blockerID, blockedID string) error {
	if !validUUID(blockedID) {
		return blocks.ErrNoSuchUser
	}
	var deleted, known bool
	err := s.db.Pool.QueryRow(ctx, `WITH d AS (
			DELETE FROM user_blocks WHERE blocker_id = $1 AND blocked_id = $2 RETURNING 1
		)
		SELECT EXISTS (SELECT 1 FROM d), EXISTS (SELECT 1 FROM users WHERE id = $2 AND deleted_at IS NULL)`,
		blockerID, blockedID).Scan(&deleted, &known)
	switch {
	case err != nil:
		return translate(err, "user")
	case !deleted && !known:
		return blocks.ErrNoSuchUser
	}
	return nil
}

// List reads a page by the index on (blocker_id, id).
func (s *Blocks) List(ctx context.Context, blockerID, before string, limit int) ([]blocks.Block, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT b.id::text, b.blocked_id::text, u.display_name, b.created_at
		FROM user_blocks b JOIN users u ON u.id = b.blocked_id AND u.deleted_at IS NULL
		WHERE b.blocker_id = $1 AND ($2 = '' OR b.id < $2::uuid)
		ORDER BY b.id DESC LIMIT $3`, blockerID, before, limit)
	if err != nil {
		return nil, translate(err, "user")
	}
	out := []blocks.Block{}
	var b blocks.Block
	_, err = pgx.ForEachRow(rows, []any{&b.ID, &b.User.ID, &b.User.DisplayName, &b.CreatedAt}, func() error {
		out = append(out, b)
		return nil
	})
	return out, translate(err, "user")
}

// Of reads the users userID blocks, and whether anyone blocks userID, in
// one statement.
func (s *Blocks) Of(ctx context.Context, userID string) (blocks.Set, error) {
	if !validUUID(userID) {
		return blocks.Set{}, nil
	}
	var ids []string
	var by bool
	err := s.db.Pool.QueryRow(ctx, `SELECT
			coalesce((SELECT array_agg(blocked_id::text) FROM user_blocks WHERE blocker_id = $1), '{}'),
			EXISTS (SELECT 1 FROM user_blocks WHERE blocked_id = $1)`, userID).Scan(&ids, &by)
	if err != nil {
		return blocks.Set{}, translate(err, "user")
	}
	return blocks.NewSet(ids, by), nil
}

// BlockListenerName is the application_name of the connection that
// listens for blocks, as pg_stat_activity shows it.
const BlockListenerName = "guidepost-user-blocks"

// WatchBlocks follows blocks on a connection of its own, reconnecting with
// a growing pause, like WatchTiles.
func (s *Blocks) WatchBlocks(ctx context.Context, w blocks.Watcher) error {
	return s.db.follow(ctx, BlockListenerName, "user_blocks", w.Lost, func(conn *pgx.Conn) error {
		return watchBlocks(ctx, conn, w)
	})
}

// watchBlocks is called once the connection listens, so Synced comes
// after the LISTEN: a block committed after it is heard, one before it is
// in any set read after Synced.
func watchBlocks(ctx context.Context, conn *pgx.Conn, w blocks.Watcher) error {
	w.Synced()
	for {
		n, err := waitForNotification(ctx, conn)
		if err != nil {
			return err
		}
		if n == nil {
			continue
		}
		blocker, blocked, ok := strings.Cut(n.Payload, ":")
		if !ok {
			w.Synced() // unreadable: trust no set
			continue
		}
		w.Changed(blocker, blocked)
	}
}
