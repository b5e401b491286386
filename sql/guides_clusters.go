package sql

import (
	"cmp"
	"context"
	"strconv"

	"github.com/guidepost/guidepost/guides"
)

// readClusters counts guides per cell of the zoom's grid, with each cell's
// exact bounds. Up to zoom 13 a cell is whole tiles, so it adds up
// guide_tiles, or guide_tile_tags for a tag (kept exact by the writing
// transactions' trigger); up to zoom 10 whole 8 × 8 blocks of tiles, so it
// adds up guide_blocks or guide_block_tags: a zoom-5 tile over Korea reads
// ~2,500 block rows at 1 M guides, not 148k tile rows nor 10^6 guides, and
// the blocks are bounded by the map's area, not by the guides. Finer zooms
// group the guides themselves, unless the viewport holds more than
// guides.MaxClusterScan of them, tagged or not (central Seoul at zoom 14
// from about 1 M guides): then its cells are the zoom-13 ones, the tile
// sums, still exact counts, for the price of its tile rows.
//
// authors (nil: none) are left out, as for a viewer who blocked them: up
// to zoom 13 the tiles that hold one of their guides are summed from their
// other guides instead of from their tile rows (and their blocks from
// their tile rows): the blocked authors' guides are few, so those tiles
// are few, and every other tile's row stays exact.
func (s *Guides) readClusters(ctx context.Context, q guides.ClusterQuery, authors []string) ([]guides.Cluster, error) {
	fine := q.Zoom > guides.MaxTileClusterZoom
	if fine {
		fits, err := s.fineScanFits(ctx, q)
		if err != nil {
			return nil, err
		}
		fine = fits
	}
	stmt, args := clusterStatement(q, authors, fine)
	rows, err := s.db.on(ctx).Query(ctx, stmt, withPlanEach(args)...)
	if err != nil {
		return nil, translate(err, "guide")
	}
	defer rows.Close()
	out := []guides.Cluster{}
	for rows.Next() {
		var c guides.Cluster
		b := &c.Bounds
		dest := []any{&c.Count, &c.Lat, &c.Lng, &b.MinLat, &b.MinLng, &b.MaxLat, &b.MaxLng}
		if q.WithTop {
			c.Top, err = scanItem(rows, dest...)
		} else {
			err = rows.Scan(append([]any{&c.Top.ID}, dest...)...)
		}
		if err != nil {
			return nil, translate(err, "guide")
		}
		if c.Count == 1 {
			// The guide's own place, not a centroid of rounded sums.
			c.GuideID, c.Lat, c.Lng = c.Top.ID, b.MinLat, b.MinLng
		}
		if !q.WithTop {
			c.Top = guides.Item{}
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "guide")
	}
	return out, nil
}

// clusterStatement is the statement readClusters runs: the guides
// grouped one by one (fine) or the tile or block sums on the zoom's grid,
// up to zoom 13's.
func clusterStatement(q guides.ClusterQuery, authors []string, fine bool) (string, []any) {
	if fine {
		cells, args := guideCells(q, authors)
		return clustersSQL(q, cells), args
	}
	tq := q
	tq.Zoom = min(q.Zoom, guides.MaxTileClusterZoom)
	cells, args := tileCells(tq, authors)
	return clustersSQL(q, cells), args
}

// clustersSQL reads the CTE cells (see withTop) in cell order, with the
// top guide's item when q asks for it.
func clustersSQL(q guides.ClusterQuery, cells string) string {
	if q.WithTop {
		return `WITH ` + cells + `
			SELECT ` + itemColumns + `, k.n, k.lat, k.lng, k.min_lat, k.min_lng, k.max_lat, k.max_lng
			FROM cells k JOIN guides g ON g.id = k.top ` + itemJoins + `
			ORDER BY k.cr, k.cc`
	}
	return `WITH ` + cells + `
		SELECT c.top::text, c.n, c.lat, c.lng, c.min_lat, c.min_lng, c.max_lat, c.max_lng
		FROM cells c ORDER BY c.cr, c.cc`
}

// cellRange is the rows and columns of cells a query's viewport meets.
func cellRange(q guides.ClusterQuery) (r0, r1, c0, c1 int64) {
	r0, c0 = guides.ClusterCell(q.BBox.MinLat, q.BBox.MinLng, q.Zoom)
	r1, c1 = guides.ClusterCell(q.BBox.MaxLat, q.BBox.MaxLng, q.Zoom)
	return r0, r1, c0, c1
}

// Both paths build the CTE "cells" (cr, cc, n, lat, lng, bounds, top)
// from a CTE "sums" of the same columns with newest (the cell's newest
// guide, the only one when n is 1) in place of top. With WithTop, top is
// the most-liked guide instead: any guide with no like loses to the
// newest one (the same count, a smaller id). The liked guides are found
// from the like shards of the viewport's tiles (likedIn), then read by
// primary key and kept when where holds for them: the work is the liked
// guides of those tiles, whatever the number of guides there.
func withTop(q guides.ClusterQuery, sums, cr, cc, where, liked string) string {
	if !q.WithTop {
		return sums + `, cells AS (SELECT s.*, s.newest AS top FROM sums s)`
	}
	// The base like_count is 0 unless folded in, which nothing does: the
	// shards name every liked guide.
	return sums + `, liked AS (
		SELECT DISTINCT ON (cr, cc) ` + cr + ` AS cr, ` + cc + ` AS cc, g.id, g.like_count + l.n AS likes
		FROM ` + liked + ` l JOIN guides g ON g.id = l.guide_id
		WHERE ` + where + `
		ORDER BY cr, cc, likes DESC, g.id DESC
	), cells AS (
		SELECT s.*, CASE WHEN l.likes > 0 THEN l.id ELSE s.newest END AS top
		FROM sums s LEFT JOIN liked l USING (cr, cc)
	)`
}

// byRow reads from the rows of the viewport's tiles (rows p[0]..p[1],
// columns p[2]..p[3]) by the index on tile, one range per row of tiles
// (every step-th row: 8 for block rows): `SELECT ` + sel + ` FROM ` +
// table + ` WHERE ` + where, with the tile column col in the row's range.
// A single range from the first row's first column to the last row's last
// would cover whole rows of tiles around the world: at 10 M guides a
// tagged zoom-11 map read every tagged tile of its latitudes (17–19k
// buffers). Each row is a subquery of its own (OFFSET 0: not flattened),
// so its only cheap plan is the index range; inTiles is added because the
// planner cannot estimate a range on r (it takes 0.5% of the table per
// row: 65,800 tile rows for a zoom-13 tile at 1 M guides, and then read
// all of guides to hash-join the cells' top guides), and estimates that
// as few rows: what follows is joined by primary key, as it should be.
func byRow(sel, table, col, where string, p [4]string, step int) string {
	return `SELECT t.* FROM generate_series(` + p[0] + `::bigint, ` + p[1] + `, ` + strconv.Itoa(step) + `) r,
		LATERAL (SELECT ` + sel + ` FROM ` + table + ` WHERE ` + where + `
			AND ` + col + ` BETWEEN r * 40000 + ` + p[2] + ` AND r * 40000 + ` + p[3] + ` AND ` + inTiles(col, p) + ` OFFSET 0) t`
}

// maxTagTiles bounds the tiles a tagged clustering names one by one (see
// tileCells): ~3 index pages each.
const maxTagTiles = 4096

// tileList is every tile of rows r0..r1, columns c0..c1.
func tileList(r0, r1, c0, c1 int64) []int64 {
	out := make([]int64, 0, (r1-r0+1)*(c1-c0+1))
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			out = append(out, r*40000+c)
		}
	}
	return out
}

// inTiles holds when the tile number in expr is in rows p[0]..p[1],
// columns p[2]..p[3]. It tests rows already found another way: no index
// answers it, so it never becomes a scan over whole rows of tiles.
func inTiles(expr string, p [4]string) string {
	return `(` + expr + `) / 40000 BETWEEN ` + p[0] + ` AND ` + p[1] + ` AND (` + expr + `) % 40000 BETWEEN ` + p[2] + ` AND ` + p[3]
}

// maxLikedRows bounds the rows of tiles whose like shards are read a row
// at a time: each row is an index descent (~2 buffers), which over the
// 1,280 tile rows of a zoom-5 tile cost 2,612 buffers and 10 ms for 49
// shards. Past it the shards of the rows' whole latitudes are read in one
// range: liked guides only, never guides, and few beside the rows.
const maxLikedRows = 64

// likedIn is (guide_id, n): each guide with like shards in the tiles p
// (rows tile rows) and its shards' sum, read from the shards' tile index
// (migrations/00020: a guide's shards all carry its tile).
func likedIn(p [4]string, rows int64) string {
	shards := byRow("guide_id, n", "guide_like_shards", "tile", "true", p, 1)
	if rows > maxLikedRows {
		shards = `SELECT guide_id, n FROM guide_like_shards
			WHERE tile BETWEEN ` + p[0] + ` * 40000 AND ` + p[1] + ` * 40000 + 39999 AND ` + inTiles("tile", p)
	}
	return `(SELECT guide_id, sum(n) AS n FROM (` + shards + `) s GROUP BY guide_id)`
}

// blockShift is log2 of a block's side in tiles (migrations/00019): a
// zoom whose cluster cells are whole blocks adds up block rows, ~1/64 of
// its tile rows, however many guides fill them.
const blockShift = 3

// tileCells adds up per-tile (or per-block) sums, of one tag's guides
// when q has one, leaving out the guides of authors (see
// ClustersWithout).
func tileCells(q guides.ClusterQuery, authors []string) (string, []any) {
	r0, r1, c0, c1 := q.Tiles()
	args := []any{r0, r1, c0, c1, int(guides.ClusterShift(q.Zoom))}
	p := [4]string{"$1", "$2", "$3", "$4"}
	const columns = `tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest`
	fine, coarse, cond, liked := `guide_tiles`, `guide_blocks`, `guides > 0`, ``
	if q.Tag != "" {
		args = append(args, q.Tag)
		fine, coarse, cond, liked = `guide_tile_tags`, `guide_block_tags`, `tag = $6`, ` AND g.tags @> ARRAY[$6::text]`
	}
	blocks := guides.ClusterShift(q.Zoom) >= blockShift
	var tiles string
	switch {
	case blocks:
		// A block is named by its south-west tile (migrations/00019), and
		// the first row is a block's: every 8th row holds block rows.
		tiles = byRow(columns, coarse, "tile", cond, p, 1<<blockShift)
	case q.Tag != "" && (r1-r0+1)*(c1-c0+1) <= maxTagTiles:
		// Named one by one, the tiles are estimated exactly, and the
		// (tag, tile) key is read: by row, the planner reads the index on
		// tile, every tag's rows of the tiles (8,946 buffers against 1,277
		// for a zoom-11 tile at 1 M guides).
		args = append(args, tileList(r0, r1, c0, c1))
		tiles = `SELECT ` + columns + ` FROM unnest($` + strconv.Itoa(len(args)) + `::bigint[]) u
			JOIN ` + fine + ` ON ` + cond + ` AND tile = u WHERE ` + inTiles("tile", p)
	default:
		tiles = byRow(columns, fine, "tile", cond, p, 1)
	}
	tiles = `SELECT * FROM (` + tiles + `) k WHERE true` // for notHit's AND
	var hit string
	if len(authors) > 0 {
		args = append(args, authors)
		x := "$" + strconv.Itoa(len(args))
		hit = `hit AS (
			SELECT DISTINCT guide_tile(g.location) AS tile FROM guides g
			WHERE g.author_id = ANY(` + x + `::uuid[]) AND ` + inTiles("guide_tile(g.location)", p) + liked + `
		), `
		liked += ` AND g.author_id <> ALL(` + x + `::uuid[])`
		notHit := ` AND tile NOT IN (SELECT tile FROM hit)`
		if blocks {
			// A block holding a hit tile is its other tiles' rows instead,
			// read a block row (8 tiles) at a time by the tile index
			// (OFFSET 0: not flattened into a join that reads the table).
			notHit = ` AND tile NOT IN (SELECT guide_tile_block(tile) FROM hit)
			UNION ALL
			SELECT f.* FROM (SELECT DISTINCT guide_tile_block(tile) AS b FROM hit) h, generate_series(0, 7) r,
			LATERAL (SELECT ` + columns + ` FROM ` + fine + `
				WHERE ` + cond + ` AND tile BETWEEN h.b + r * 40000 AND h.b + r * 40000 + 7` + notHit + ` OFFSET 0) f`
		}
		tiles += notHit + `
		UNION ALL
		SELECT guide_tile(g.location), count(*)::int, sum(round(ST_Y(g.location::geometry) * 1e7))::bigint,
		       sum(round(ST_X(g.location::geometry) * 1e7))::bigint,
		       min(ST_Y(g.location::geometry)), min(ST_X(g.location::geometry)),
		       max(ST_Y(g.location::geometry)), max(ST_X(g.location::geometry)), max(g.id::text)::uuid
		FROM guides g WHERE guide_tile(g.location) IN (SELECT tile FROM hit)` + liked + `
		GROUP BY 1`
	}
	sums := hit + `sums AS (
		SELECT (tile / 40000) >> $5 AS cr, (tile % 40000) >> $5 AS cc, sum(guides)::bigint AS n,
		       sum(sum_lat_e7)::float8 / sum(guides) / 1e7 AS lat, sum(sum_lng_e7)::float8 / sum(guides) / 1e7 AS lng,
		       min(min_lat) AS min_lat, min(min_lng) AS min_lng, max(max_lat) AS max_lat, max(max_lng) AS max_lng,
		       max(newest::text)::uuid AS newest
		FROM (` + tiles + `) t
		GROUP BY 1, 2
	)`
	return withTop(q, sums, `(guide_tile(g.location) / 40000) >> $5`, `(guide_tile(g.location) % 40000) >> $5`,
		inTiles("guide_tile(g.location)", p)+liked+` AND g.`+shown, likedIn(p, r1-r0+1)), args
}

// guideCells groups the guides themselves, above zoom 13 (cells finer
// than a tile). The envelope (edges included) finds candidates by the
// planar index; the cell numbers decide exactly which cells they belong
// to.
func guideCells(q guides.ClusterQuery, authors []string) (string, []any) {
	r0, r1, c0, c1 := cellRange(q)
	f := guides.ClusterCellsPerDegree(q.Zoom)
	fs := strconv.FormatFloat(f, 'g', -1, 64)
	cr, cc := `floor(ST_Y(g.location::geometry) * `+fs+`)::bigint`, `floor(ST_X(g.location::geometry) * `+fs+`)::bigint`
	env := guides.BBox{MinLat: float64(r0) / f, MinLng: float64(c0) / f, MaxLat: float64(r1+1) / f, MaxLng: float64(c1+1) / f}
	var tag *string
	if q.Tag != "" {
		tag = &q.Tag
	}
	// The tag is tested on each candidate (= ANY, which the tags' GIN
	// index cannot answer), never looked up in that index: its posting
	// list is every guide carrying the tag anywhere (10^6 for a common
	// one at 10 M guides), read whole to AND it with the envelope's,
	// while the envelope's guides are what fineScanFits bounds.
	where := `g.location::geometry && ST_MakeEnvelope($1, $2, $3, $4, 4326)
		  AND ($5::text IS NULL OR $5::text = ANY(g.tags)) AND g.` + shown + `
		  AND ` + cr + ` BETWEEN $6 AND $7 AND ` + cc + ` BETWEEN $8 AND $9
		  AND g.author_id <> ALL($10::uuid[])`
	sums := `sums AS (
		SELECT ` + cr + ` AS cr, ` + cc + ` AS cc, count(*) AS n,
		       avg(ST_Y(g.location::geometry)) AS lat, avg(ST_X(g.location::geometry)) AS lng,
		       min(ST_Y(g.location::geometry)) AS min_lat, min(ST_X(g.location::geometry)) AS min_lng,
		       max(ST_Y(g.location::geometry)) AS max_lat, max(ST_X(g.location::geometry)) AS max_lng,
		       max(g.id::text)::uuid AS newest
		FROM guides g
		WHERE ` + where + `
		GROUP BY 1, 2
	)`
	if authors == nil {
		authors = []string{}
	}
	args := []any{env.MinLng, env.MinLat, env.MaxLng, env.MaxLat, tag, r0, r1, c0, c1, authors}
	if q.WithTop {
		t0, t1, tc0, tc1 := q.Tiles()
		args = append(args, t0, t1, tc0, tc1)
	}
	t0, t1, _, _ := q.Tiles()
	return withTop(q, sums, cr, cc, where, likedIn([4]string{"$11", "$12", "$13", "$14"}, t1-t0+1)), args
}

// fineScanFits tells whether a clustering above zoom 13 may group the
// viewport's guides one by one: whether its tiles hold at most
// s.maxFineScan() guides, which the per-tile sums say for the price of
// the tile rows. With a tag too all guides count, not only those carrying
// it: the envelope's guides are what the grouping reads (see guideCells),
// a tag only filters them. Hidden guides, read too, are few.
func (s *Guides) fineScanFits(ctx context.Context, q guides.ClusterQuery) (bool, error) {
	r0, r1, c0, c1 := q.Tiles()
	var n int64
	p := [4]string{"$1", "$2", "$3", "$4"}
	err := s.db.on(ctx).QueryRow(ctx, `SELECT coalesce(sum(guides), 0)::bigint FROM (`+byRow("guides", "guide_tiles", "tile", "true", p, 1)+`) t`,
		planEach, r0, r1, c0, c1).Scan(&n)
	if err != nil {
		return false, translate(err, "guide")
	}
	return n <= s.maxFineScan(), nil
}

// maxFineScan is guides.MaxClusterScan unless a test set a smaller bound.
func (s *Guides) maxFineScan() int64 {
	return cmp.Or(s.fineScanBound, guides.MaxClusterScan)
}

// AuthorsIn looks for a guide of authors in q's tiles by the index on
// author_id: a blocker's blocked authors have few guides beside a map's.
func (s *Guides) AuthorsIn(ctx context.Context, authors []string, q guides.ClusterQuery) (bool, error) {
	if len(authors) == 0 {
		return false, nil
	}
	r0, r1, c0, c1 := q.Tiles()
	var tag *string
	if q.Tag != "" {
		tag = &q.Tag
	}
	var yes bool
	err := s.db.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM guides g
		WHERE g.author_id = ANY($1::uuid[])
		  AND `+inTiles("guide_tile(g.location)", [4]string{"$2", "$3", "$4", "$5"})+`
		  AND ($6::text IS NULL OR g.tags @> ARRAY[$6::text]))`, planEach, authors, r0, r1, c0, c1, tag).Scan(&yes)
	return yes, translate(err, "guide")
}
