package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5/pgxpool"
)

// dbFloor is the database floor: each write the storm's routes need,
// durably, and nothing else — a guest is one session row, a like one
// INSERT … ON CONFLICT DO NOTHING that also counts the guide's likes, each
// its own statement and its own commit (no group commit, no session
// check, no counter row to contend on). The tables live in a scratch
// schema of their own, emptied when the floor starts; the pool is the
// size of the API's, so both wait on the same number of connections.
type dbFloor struct {
	pool  *pgxpool.Pool
	group *groupCommit // nil: each like commits alone (-floor-db-group: floorgroup.go)
}

// floorSchema is the scratch schema the database floor writes in.
const floorSchema = "nearbybench_floor"

// apiPoolSize is guidepost's default pool (sql/db.go).
const apiPoolSize = 16

// dbFloorOpts is the database floor asked for: where, its pool, and
// whether its likes share commits (floorgroup.go). url "" is none.
type dbFloorOpts struct {
	url   string
	conns int
	group bool
}

func openDBFloor(ctx context.Context, o dbFloorOpts) (*dbFloor, error) {
	url, conns := o.url, o.conns
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("floor database: %w", err)
	}
	cfg.MaxConns = int32(conns)
	cfg.MinConns = int32(conns) // opened before the storm, as the API warms its pool
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("floor database: %w", err)
	}
	if _, err := pool.Exec(ctx, `
CREATE SCHEMA IF NOT EXISTS `+floorSchema+`;
CREATE TABLE IF NOT EXISTS `+floorSchema+`.sessions (id uuid PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS `+floorSchema+`.guides (id uuid PRIMARY KEY);
CREATE TABLE IF NOT EXISTS `+floorSchema+`.likes (guide_id uuid NOT NULL, session_id uuid NOT NULL, PRIMARY KEY (guide_id, session_id));
TRUNCATE `+floorSchema+`.sessions, `+floorSchema+`.guides, `+floorSchema+`.likes`); err != nil {
		pool.Close()
		return nil, fmt.Errorf("floor schema: %w", err)
	}
	d := &dbFloor{pool: pool}
	if o.group {
		d.group = startGroupCommit(d)
	}
	return d, nil
}

func (d *dbFloor) close() {
	if d.group != nil {
		d.group.stop()
	}
	d.pool.Close()
}

func (d *dbFloor) guest(ctx context.Context) (string, error) {
	id := newUUID()
	_, err := d.pool.Exec(ctx, `INSERT INTO `+floorSchema+`.sessions (id) VALUES ($1)`, id)
	return id, err
}

func (d *dbFloor) newGuide(ctx context.Context) (string, error) {
	id := newUUID()
	_, err := d.pool.Exec(ctx, `INSERT INTO `+floorSchema+`.guides (id) VALUES ($1)`, id)
	return id, err
}

func (d *dbFloor) like(ctx context.Context, guide, token string) (int, bool, error) {
	if d.group != nil {
		return d.group.like(ctx, guide, token)
	}
	return d.likeOne(ctx, guide, token)
}

// likeOne writes the like and reads the count in one statement. The count
// is the likes its snapshot sees plus its own when the snapshot does not
// see it: inserted by this statement (a CTE's insert is invisible to its
// siblings), or by a double tap that committed after the snapshot was
// taken (ON CONFLICT waited for it). ins runs whether or not it is read:
// PostgreSQL executes a data-modifying WITH exactly once.
func (d *dbFloor) likeOne(ctx context.Context, guide, token string) (int, bool, error) {
	if !isUUID(guide) || !isUUID(token) {
		return 0, false, nil
	}
	var n int
	var found bool
	err := d.pool.QueryRow(ctx, `
WITH g AS (SELECT id FROM `+floorSchema+`.guides WHERE id = $1),
ins AS (INSERT INTO `+floorSchema+`.likes (guide_id, session_id) SELECT id, $2 FROM g ON CONFLICT DO NOTHING RETURNING 1)
SELECT (SELECT count(*) FROM `+floorSchema+`.likes WHERE guide_id = $1)
	+ CASE WHEN EXISTS (SELECT FROM `+floorSchema+`.likes WHERE guide_id = $1 AND session_id = $2) THEN 0 ELSE 1 END,
	EXISTS (SELECT FROM g)`,
		guide, token).Scan(&n, &found)
	return pick(found, n, 0), found, err
}

func (d *dbFloor) count(ctx context.Context, guide string) (int, bool, error) {
	if !isUUID(guide) {
		return 0, false, nil
	}
	var n int
	var found bool
	err := d.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+floorSchema+`.likes WHERE guide_id = $1),
EXISTS (SELECT FROM `+floorSchema+`.guides WHERE id = $1)`, guide).Scan(&n, &found)
	return n, found, err
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func isUUID(s string) bool { return uuidRE.MatchString(s) }

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
