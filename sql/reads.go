package sql

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/guidepost/guidepost"
)

// reader is what a read runs on: the primary's pool or a replica's.
type reader interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

type readerKey struct{}

// on is the pool a read in ctx runs on: the one read chose, else the
// primary.
func (db *DB) on(ctx context.Context) reader {
	if r, ok := ctx.Value(readerKey{}).(reader); ok {
		return r
	}
	return db.Pool
}

// read runs fn, whose statements go to db.on(ctx), on a replica that has
// replayed need and ctx's read mark (see replicas.pick), or on the
// primary; a replica that fails the read (gone, or a query cancelled by
// replay) hands it to the primary. fn may run twice: it must start afresh.
func (db *DB) read(ctx context.Context, need uint64, fn func(context.Context) error) error {
	if db.reads == nil {
		return fn(ctx)
	}
	pool, rep := db.reads.pick(ctx, max(need, guidepost.ReadMark(ctx)))
	err := fn(context.WithValue(ctx, readerKey{}, reader(pool)))
	if rep == nil || err == nil || ctx.Err() != nil || !replicaFailed(err) {
		return err
	}
	if isConnError(err) {
		rep.healthy.Store(false) // until the health loop sees it answer
	}
	db.reads.m.moved.WithLabelValues("replica_error").Inc()
	return fn(ctx)
}

// mapRead is read for a map or guide read: it must see every tile version
// this process knows, so that it answers as the cache would.
func (db *DB) mapRead(ctx context.Context, fn func(context.Context) error) error {
	var need uint64
	if db.reads != nil {
		need = db.reads.tiles.newest.Load()
	}
	return db.read(ctx, need, fn)
}

// exec is a one-statement write: its position is noted like a
// transaction's (see noteWrite).
func (db *DB) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := db.Pool.Exec(ctx, sql, args...)
	if err == nil {
		db.noteWrite(ctx)
	}
	return tag, err
}

// noteWrite gives ctx's read mark the primary's position after a write
// that committed, when reads may go to replicas and the request follows
// its writes.
func (db *DB) noteWrite(ctx context.Context) {
	if db.reads != nil && guidepost.FollowsWrites(ctx) {
		db.writtenAt(ctx)
	}
}

// writtenAt reads the primary's position after a commit and raises ctx's
// read mark to it. Unknown (the primary did not answer) it asks for a
// position no replica has, so the client's reads go to the primary until
// its mark expires.
func (db *DB) writtenAt(ctx context.Context) uint64 {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	lsn, err := currentLSN(cctx, db.Pool)
	if err != nil {
		guidepost.Wrote(ctx, math.MaxInt64)
		return 0
	}
	guidepost.Wrote(ctx, lsn)
	return lsn
}

// tilesBumped records, before anyone hears of them, that tiles got new
// versions in a write ctx's request just committed.
func (db *DB) tilesBumped(ctx context.Context, tiles []int64) {
	if db.reads == nil || len(tiles) == 0 {
		return
	}
	lsn := guidepost.ReadMark(ctx) // noteWrite read it after the commit
	if !guidepost.FollowsWrites(ctx) {
		lsn = db.writtenAt(ctx)
	}
	if lsn > 0 && lsn < math.MaxInt64 {
		db.reads.tiles.bumped(tiles, lsn)
	}
}

// tileMarks is where tile versions' positions are kept (nil: no replicas).
func (db *DB) tileMarks() *tileMarks {
	if db.reads == nil {
		return nil
	}
	return &db.reads.tiles
}

// ReplicasReady reports, for readiness, whether reads have a replica: an
// error names how many are configured when none is in rotation (the
// primary then serves every read).
func (db *DB) ReplicasReady(context.Context) error {
	if db.reads == nil || db.reads.inRotation() > 0 {
		return nil
	}
	return fmt.Errorf("none of %d replicas is in rotation: the primary serves every read", len(db.reads.list))
}
