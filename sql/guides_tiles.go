package sql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/guidepost/guidepost/guides"
)

// tileItemColumns reads a tile's list item from g (itemSource) and its
// cover c (itemJoins), empty where the tile has no guide; tileItemDest
// scans them.
const tileItemColumns = `coalesce(g.id::text, ''), coalesce(g.author_id::text, ''), coalesce(` + authorName + `, ''), coalesce(g.title, ''),
			coalesce(ST_Y(g.location::geometry), 0), coalesce(ST_X(g.location::geometry), 0),
			coalesce(g.tags, '{}'), coalesce(g.created_at, 'epoch'),
			coalesce(g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0), 0)::bigint,
			` + photoCount + `,
			coalesce(c.id::text, ''), coalesce(c.status, ''), coalesce(c.thumbhash, ''), coalesce(c.width, 0), coalesce(c.height, 0), c.variants`

func tileItemDest(it *guides.Item) []any {
	return []any{&it.ID, &it.Author.ID, &it.Author.DisplayName, &it.Title, &it.Lat, &it.Lng,
		&it.Tags, &it.CreatedAt, &it.LikeCount, &it.PhotoCount, &it.Cover.MediaID, &it.Cover.Status, &it.Cover.ThumbHash,
		&it.Cover.Width, &it.Cover.Height, (*variantsColumn)(&it.Cover.Variants)}
}

// readTiles reads whole tiles for the cache: one statement, so one snapshot
// for the versions and the guides. Guides are found by the expression
// index on guide_tile(location), the same numbering as guides.TileOf, so
// membership is exact; each tile's guides come newest first.
func (s *Guides) readTiles(ctx context.Context, tiles []int64, maxGuides int) ([]guides.Tile, error) {
	rows, err := s.db.on(ctx).Query(ctx, `SELECT t.tile, coalesce(v.version, 0), coalesce(v.guides, 0), g.id IS NOT NULL,
			`+tileItemColumns+`
		FROM unnest($1::bigint[]) AS t(tile)
		LEFT JOIN guide_tiles v ON v.tile = t.tile
		LEFT JOIN LATERAL (
			SELECT `+itemSource+` FROM guides g
			WHERE guide_tile(g.location) = t.tile AND coalesce(v.guides, 0) <= $2 AND g.`+shown+`
		) g ON true
		`+itemJoins+`
		ORDER BY t.tile, g.id DESC`, tiles, maxGuides)
	if err != nil {
		return nil, translate(err, "guide")
	}
	var out []guides.Tile
	var (
		tile, version int64
		count         int
		has           bool
		it            guides.Item
	)
	dest := append([]any{&tile, &version, &count, &has}, tileItemDest(&it)...)
	_, err = pgx.ForEachRow(rows, dest, func() error {
		if len(out) == 0 || out[len(out)-1].ID != tile {
			out = append(out, guides.Tile{ID: tile, Version: version, Count: count, TooLarge: count > maxGuides})
		}
		if has {
			t := &out[len(out)-1]
			t.Items = append(t.Items, it)
		}
		it = guides.Item{}
		return nil
	})
	if err != nil {
		return nil, translate(err, "guide")
	}
	return out, nil
}

// readSubTiles reads parts of dense tiles for the cache, in one statement
// like readTiles. Each part is found by the planar index on location (a
// box a hair wider than the part), then kept by the same floor(·100·div)
// that guides.SubRow computes, so parts never overlap. A part stops at
// maxGuides+1 guides: one more says it is too large without reading it all.
func (s *Guides) readSubTiles(ctx context.Context, parts []guides.SubTile, maxGuides int) ([]guides.Tile, error) {
	tiles := make([]int64, len(parts))
	divs, prow, pcol := make([]int32, len(parts)), make([]int32, len(parts)), make([]int32, len(parts))
	for i, p := range parts {
		tiles[i], divs[i], prow[i], pcol[i] = p.Tile, int32(p.Div), int32(p.Row), int32(p.Col)
	}
	rows, err := s.db.on(ctx).Query(ctx, `SELECT p.n, coalesce(v.version, 0), g.id IS NOT NULL,
			`+tileItemColumns+`
		FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[]) WITH ORDINALITY AS p(tile, div, r, c, n)
		CROSS JOIN LATERAL (SELECT ((p.tile / 40000 - 9000) * p.div + p.r)::float8 AS sr,
			((p.tile % 40000 - 18000) * p.div + p.c)::float8 AS sc, 100.0::float8 * p.div AS scale) k
		LEFT JOIN guide_tiles v ON v.tile = p.tile
		LEFT JOIN LATERAL (
			SELECT `+itemSource+` FROM guides g
			WHERE g.location::geometry && ST_MakeEnvelope(k.sc / k.scale - 1e-9, k.sr / k.scale - 1e-9,
					(k.sc + 1) / k.scale + 1e-9, (k.sr + 1) / k.scale + 1e-9, 4326)
				AND floor(ST_Y(g.location::geometry) * 100 * p.div) = k.sr
				AND floor(ST_X(g.location::geometry) * 100 * p.div) = k.sc
				AND g.`+shown+`
			LIMIT $5::int + 1
		) g ON true
		`+itemJoins+`
		ORDER BY p.n, g.id DESC`, tiles, divs, prow, pcol, maxGuides)
	if err != nil {
		return nil, translate(err, "guide")
	}
	out := make([]guides.Tile, 0, len(parts))
	var (
		n, version int64
		has        bool
		it         guides.Item
	)
	dest := append([]any{&n, &version, &has}, tileItemDest(&it)...)
	_, err = pgx.ForEachRow(rows, dest, func() error {
		if len(out) < int(n) {
			out = append(out, guides.Tile{ID: parts[n-1].Tile, Version: version})
		}
		if t := &out[len(out)-1]; has {
			t.Count++
			if t.Count > maxGuides {
				t.TooLarge, t.Items = true, nil
			} else {
				t.Items = append(t.Items, it)
			}
		}
		it = guides.Item{}
		return nil
	})
	if err != nil {
		return nil, translate(err, "guide")
	}
	if len(out) != len(parts) {
		return nil, fmt.Errorf("sql: %d of %d tile parts read", len(out), len(parts))
	}
	return out, nil
}

// GuideTiles returns the tile of each guide that exists.
func (s *Guides) GuideTiles(ctx context.Context, ids []string) (map[string]int64, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT id::text, guide_tile(location) FROM guides WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return nil, translate(err, "guide")
	}
	out := make(map[string]int64, len(ids))
	var id string
	var tile int64
	_, err = pgx.ForEachRow(rows, []any{&id, &tile}, func() error {
		out[id] = tile
		return nil
	})
	return out, translate(err, "guide")
}

// Namespace names this database for keys in a Redis that other databases
// may share: its oid (new when a database is dropped and made again) and
// the server's start time (a restored cluster starts anew).
func (s *Guides) Namespace(ctx context.Context) (string, error) {
	var oid uint32
	var started time.Time
	err := s.db.Pool.QueryRow(ctx, `SELECT d.oid, pg_postmaster_start_time() FROM pg_database d WHERE d.datname = current_database()`).
		Scan(&oid, &started)
	if err != nil {
		return "", translate(err, "database")
	}
	return fmt.Sprintf("%d.%d", oid, started.UnixMicro()), nil
}

// TileListenerName is the application_name of the listening connection,
// as pg_stat_activity shows it.
const TileListenerName = "guidepost-guide-tiles"

// watchPing is how often an idle listening connection is checked, so a
// silently dead one is noticed (and the cache stops trusting itself).
const watchPing = 5 * time.Second

// WatchTiles follows tile versions on a connection of its own (a pooled one
// would be handed to others): LISTEN first, then read every version, then
// apply notifications, so nothing falls between the two.
func (s *Guides) WatchTiles(ctx context.Context, w guides.TileWatcher) error {
	return s.db.follow(ctx, TileListenerName, "guide_tiles", w.Lost, func(conn *pgx.Conn) error {
		return s.watchTiles(ctx, conn, w)
	})
}

// watchTiles syncs w, then applies notifications until the connection
// fails; with replicas, marks learn each version's position.
func (s *Guides) watchTiles(ctx context.Context, conn *pgx.Conn, w guides.TileWatcher) error {
	marks := s.db.tileMarks()
	if err := syncTiles(ctx, conn, w, marks); err != nil {
		return err
	}
	for {
		n, err := waitForNotification(ctx, conn)
		if err != nil {
			return err
		}
		if n != nil {
			if err := applyNotification(ctx, conn, w, n.Payload, marks); err != nil {
				return err
			}
		}
	}
}

// syncTiles hands w every tile's version; with replicas, marks first
// learns the position they were all committed before.
func syncTiles(ctx context.Context, conn *pgx.Conn, w guides.TileWatcher, marks *tileMarks) error {
	versions, err := allTileVersions(ctx, conn)
	if err != nil {
		return err
	}
	if marks != nil {
		lsn, err := currentLSN(ctx, conn)
		if err != nil {
			return err
		}
		marks.synced(lsn)
	}
	w.Synced(versions)
	return nil
}

// waitForNotification waits up to watchPing for a notification; when none
// comes it makes sure the connection still lives and returns nil, nil.
func waitForNotification(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	wctx, cancel := context.WithTimeout(ctx, watchPing)
	n, err := conn.WaitForNotification(wctx)
	cancel()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return nil, conn.Ping(pctx)
	}
	return n, err
}

// applyNotification passes each "tile:version:guides" of payload to w; "*"
// (a bulk change) or anything unreadable makes it read every version again.
// With replicas, marks first learns a position past the commit that sent
// it: PostgreSQL delivers a notification only after its commit.
func applyNotification(ctx context.Context, conn *pgx.Conn, w guides.TileWatcher, payload string, marks *tileMarks) error {
	if payload == "*" {
		return syncTiles(ctx, conn, w, marks)
	}
	items := strings.Split(payload, ",")
	tiles := make([]int64, len(items))
	states := make([]guides.TileState, len(items))
	for i, item := range items {
		tile, st, ok := parseTileState(item)
		if !ok {
			return syncTiles(ctx, conn, w, marks) // unreadable: trust nothing
		}
		tiles[i], states[i] = tile, st
	}
	if marks != nil {
		lsn, err := currentLSN(ctx, conn)
		if err != nil {
			return err
		}
		marks.bumped(tiles, lsn)
	}
	for i, tile := range tiles {
		w.Changed(tile, states[i])
	}
	return nil
}

// parseTileState reads "tile:version:guides".
func parseTileState(s string) (int64, guides.TileState, bool) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, guides.TileState{}, false
	}
	tile, err1 := strconv.ParseInt(parts[0], 10, 64)
	version, err2 := strconv.ParseInt(parts[1], 10, 64)
	count, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, guides.TileState{}, false
	}
	return tile, guides.TileState{Version: version, Guides: count}, true
}

func allTileVersions(ctx context.Context, conn *pgx.Conn) (map[int64]guides.TileState, error) {
	return scanTileStates(conn.Query(ctx, `SELECT tile, version, guides FROM guide_tiles`))
}
