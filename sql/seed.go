package sql

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// GuideRow is one guide as a bulk load writes it: no photos, no likes.
type GuideRow struct {
	ID, AuthorID string
	Title, Body  string
	Lat, Lng     float64
	Tags         []string
	CreatedAt    time.Time
}

// CreateGuestAuthors inserts guest users named prefix 1, prefix 2, … for
// generated guides.
func CreateGuestAuthors(ctx context.Context, db *DB, ids []string, prefix string, at time.Time) error {
	_, err := db.Pool.Exec(ctx, `INSERT INTO users (id, display_name, guest, created_at)
		SELECT id, $2 || ord, true, $3 FROM unnest($1::uuid[]) WITH ORDINALITY AS a(id, ord)`, ids, prefix, at)
	return err
}

// copyGuides writes rows with one COPY. Rows given in tile order share
// disk pages with their neighbours.
func copyGuides(ctx context.Context, tx pgx.Tx, rows []GuideRow) error {
	src := make([][]any, len(rows))
	for i, g := range rows {
		src[i] = []any{g.ID, g.AuthorID, g.Title, g.Body, ewkbPoint(g.Lat, g.Lng), nonNil(g.Tags), int64(0), g.CreatedAt, g.CreatedAt}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"guides"},
		[]string{"id", "author_id", "title", "body", "location", "tags", "like_count", "created_at", "updated_at"},
		pgx.CopyFromRows(src))
	return err
}

// LoadGuides runs load, which writes batches of rows through put, as one
// transaction. Into an empty table it first sets the secondary indexes
// aside and builds them again at the end: one sorted build per index
// instead of an insertion per row and index (the GIN text index above
// all), which at 10 M guides is the difference between hours and
// minutes on two cores. The table is locked until the load commits; a
// load that fails leaves it as it was, indexes included.
func LoadGuides(ctx context.Context, db *DB, load func(put func([]GuideRow) error) error) error {
	return db.InTx(ctx, func(tx pgx.Tx) error {
		var defs []string
		if err := tx.QueryRow(ctx, `SELECT CASE WHEN EXISTS (SELECT 1 FROM guides) THEN '{}'::text[]
			ELSE coalesce(array_agg(indexdef), '{}') END
			FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = 'public'::regnamespace
			WHERE i.schemaname = 'public' AND i.tablename = 'guides'
			  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)`).Scan(&defs); err != nil {
			return fmt.Errorf("load guides: indexes: %w", err)
		}
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '512MB'`); err != nil {
			return err
		}
		for _, def := range defs {
			if _, err := tx.Exec(ctx, `DROP INDEX `+indexName(def)); err != nil {
				return fmt.Errorf("load guides: set %s aside: %w", indexName(def), err)
			}
		}
		if err := load(func(rows []GuideRow) error { return copyGuides(ctx, tx, rows) }); err != nil {
			return err
		}
		for _, def := range defs {
			if _, err := tx.Exec(ctx, def); err != nil {
				return fmt.Errorf("load guides: build %s: %w", indexName(def), err)
			}
		}
		return nil
	})
}

// indexName is the (schema-qualified) index a CREATE INDEX statement from
// pg_indexes names: "CREATE [UNIQUE] INDEX name ON ...".
func indexName(def string) string {
	f := strings.Fields(def)
	for i, w := range f {
		if w == "INDEX" && i+1 < len(f) {
			return "public." + f[i+1]
		}
	}
	return ""
}

// InsertGuidesOnce writes rows in one statement, skipping ids already
// stored, and returns how many it added.
func InsertGuidesOnce(ctx context.Context, db *DB, authorID string, rows []GuideRow) (int, error) {
	n := len(rows)
	ids, titles, bodies := make([]string, n), make([]string, n), make([]string, n)
	lats, lngs := make([]float64, n), make([]float64, n)
	tags := make([]string, n) // as array literals: a ragged text[][] cannot be unnested
	created := make([]time.Time, n)
	for i, g := range rows {
		ids[i], titles[i], bodies[i], lats[i], lngs[i], created[i] = g.ID, g.Title, g.Body, g.Lat, g.Lng, g.CreatedAt
		tags[i] = "{" + strings.Join(g.Tags, ",") + "}"
	}
	var added int
	err := db.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO guides (id, author_id, title, body, location, tags, created_at, updated_at)
			SELECT d.id, $1, d.title, d.body, ST_SetSRID(ST_MakePoint(d.lng, d.lat), 4326)::geography, d.tags::text[], d.created, d.created
			FROM unnest($2::uuid[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::text[], $8::timestamptz[])
				AS d(id, title, body, lat, lng, tags, created)
			ON CONFLICT (id) DO NOTHING`, authorID, ids, titles, bodies, lats, lngs, tags, created)
		added = int(tag.RowsAffected())
		return err
	})
	return added, err
}

// AnalyzeGuides refreshes the planner's statistics after a bulk load, of
// the guides and of the per-tile and per-block rows the load wrote, and
// vacuums them: a million guides leave as many dead per-tile rows (each
// insert updates its tile's row), which autovacuum would otherwise clean
// at a moment of its choosing, in the middle of the first load test. The
// like tables are analyzed too, empty as they are: never analyzed, the
// planner takes them for ten pages and finds a vector tile's liked guides
// from every guide in its tiles instead of from the likes (6,232 buffers
// for one zoom-13 tile of central Seoul at 1 M guides, 248 once they were
// analyzed).
func AnalyzeGuides(ctx context.Context, db *DB) error {
	if _, err := db.Pool.Exec(ctx, `VACUUM (ANALYZE) guides, guide_tiles, guide_tile_tags, guide_blocks, guide_block_tags, guide_likes, guide_like_shards`); err != nil {
		return fmt.Errorf("analyze guides: %w", err)
	}
	return nil
}

// ewkbPoint is a point with SRID 4326 in extended WKB, what geography's
// binary input reads in COPY.
func ewkbPoint(lat, lng float64) []byte {
	b := make([]byte, 0, 25)
	b = append(b, 1)                                    // little-endian
	b = binary.LittleEndian.AppendUint32(b, 0x20000001) // point, with SRID
	b = binary.LittleEndian.AppendUint32(b, 4326)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(lng))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(lat))
}

// DemoGuideIDs returns the n guides of authorID nearest Seoul City Hall:
// the ones seed --demo gives photos, so the README's first nearby query
// shows thumbnails.
func DemoGuideIDs(ctx context.Context, db *DB, authorID string, n int) ([]string, error) {
	rows, err := db.Pool.Query(ctx, `SELECT id::text FROM guides WHERE author_id = $1
		ORDER BY location <-> ST_SetSRID(ST_MakePoint(126.9780, 37.5665), 4326)::geography, id LIMIT $2`, authorID, n)
	if err != nil {
		return nil, translate(err, "guide")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, translate(err, "guide")
}
