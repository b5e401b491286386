package sql

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"
)

// follow runs watch on a connection of its own (a pooled one would be
// handed to others), named name in pg_stat_activity and listening on
// channel, until ctx ends: each time the connection fails, lost hears why
// and a new one is made after a pause growing from 100 ms to 5 s. It
// returns only once watch has returned.
func (db *DB) follow(ctx context.Context, name, channel string, lost func(error), watch func(*pgx.Conn) error) error {
	backoff := 100 * time.Millisecond
	for {
		err := db.listenOnce(ctx, name, channel, watch)
		if ctx.Err() != nil {
			return nil
		}
		lost(err)
		if !guidepost.Sleep(ctx, backoff) {
			return nil
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (db *DB) listenOnce(ctx context.Context, name, channel string, watch func(*pgx.Conn) error) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	cfg := db.Pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = name
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	return watch(conn)
}
