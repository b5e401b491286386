package sql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
)

// Guides stores guides, their photos' order and their likes, and answers
// the spatial queries: nearby by KNN on the geography index, viewports on
// the planar index, clusters from per-tile sums.
type Guides struct {
	db *DB

	mu    sync.Mutex
	hooks []func(tile int64, s guides.TileState)

	batcher atomic.Pointer[likeBatcher] // nil: each like is its own statement

	fineScanBound int64 // 0: guides.MaxClusterScan (see fineScanFits)
}

var (
	_ guides.Store      = (*Guides)(nil)
	_ guides.TileSource = (*Guides)(nil)
)

// NewGuides returns the PostgreSQL guide store.
func NewGuides(db *DB) *Guides { return &Guides{db: db} }

// point is the SQL for the geography point at ($lng, $lat).
func point(lat, lng string) string {
	return "ST_SetSRID(ST_MakePoint(" + lng + ", " + lat + "), 4326)::geography"
}

// itemColumns reads a list item from guides g (itemSource's columns) and
// its cover c (itemJoins). The like count adds the shards to the base (see
// likes.go). The author's name is a subquery, one primary-key probe per
// row returned, whatever the planner thinks of the users table.
const itemColumns = `g.id::text, g.author_id::text, ` + authorName + `, g.title, ST_Y(g.location::geometry), ST_X(g.location::geometry),
	g.tags, g.created_at,
	g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint,
	` + photoCount + `,
	coalesce(c.id::text, ''), coalesce(c.status, ''), coalesce(c.thumbhash, ''), coalesce(c.width, 0), coalesce(c.height, 0), c.variants`

// photoCount counts a guide's photos that are not hidden (moderation).
const photoCount = `(SELECT count(*) FROM guide_media pc JOIN media pm ON pm.id = pc.media_id
		WHERE pc.guide_id = g.id AND pm.hidden_at IS NULL)::int`

// shown keeps the guides not hidden by moderation out of every public read
// (guides.Hold): a hidden guide leaves lists, tiles and search at once.
const shown = `hidden_at IS NULL`

const authorName = `(SELECT u.display_name FROM users u WHERE u.id = g.author_id)`

// itemSource is what an inner scan of guides hands to itemColumns.
const itemSource = `id, author_id, title, location, tags, created_at, like_count`

// itemJoins' cover is the first photo not hidden. The photo is read by
// its primary key for each of the guide's photos in order (OFFSET 0 keeps
// the planner from turning that around into a scan of media and a sort).
const itemJoins = `LEFT JOIN LATERAL (
		SELECT m.id, m.status, m.thumbhash, m.width, m.height, m.variants FROM guide_media gm,
			LATERAL (SELECT id, status, thumbhash, width, height, variants, hidden_at FROM media WHERE id = gm.media_id OFFSET 0) m
		WHERE gm.guide_id = g.id AND m.hidden_at IS NULL ORDER BY gm.position LIMIT 1
	) c ON true`

func scanItem(row pgx.Row, extra ...any) (guides.Item, error) {
	var it guides.Item
	dest := append([]any{&it.ID, &it.Author.ID, &it.Author.DisplayName, &it.Title, &it.Lat, &it.Lng, &it.Tags, &it.CreatedAt,
		&it.LikeCount, &it.PhotoCount, &it.Cover.MediaID, &it.Cover.Status, &it.Cover.ThumbHash,
		&it.Cover.Width, &it.Cover.Height, (*variantsColumn)(&it.Cover.Variants)}, extra...)
	err := row.Scan(dest...)
	if it.Tags == nil {
		it.Tags = []string{}
	}
	return it, err
}

func (s *Guides) CreateGuide(ctx context.Context, g guides.NewGuide) error {
	var versions map[int64]guides.TileState
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		if err := checkMedia(ctx, tx, g.AuthorID, g.MediaIDs, nil); err != nil {
			return err
		}
		if err := checkSpot(ctx, tx, g.Lat, g.Lng, g.ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO guides (id, author_id, title, body, location, tags, created_at, updated_at)
			VALUES ($1, $2, $3, $4, `+point("$5", "$6")+`, $7, $8, $8)`,
			g.ID, g.AuthorID, g.Title, g.Body, g.Lat, g.Lng, nonNil(g.Tags), g.CreatedAt)
		if err != nil {
			return writeError(err)
		}
		if err := attachMedia(ctx, tx, g.ID, g.MediaIDs); err != nil {
			return err
		}
		versions, err = tileVersions(ctx, tx, guides.TileOf(g.Lat, g.Lng))
		return err
	})
	if err != nil {
		return err
	}
	s.tilesWritten(ctx, versions)
	return nil
}

// checkSpot refuses a guide at a spot that already holds
// guides.MaxGuidesPerSpot others. The KNN scan orders by a lossy index
// distance: every guide within about a metre of a result is read before it
// can be returned, so a stack of guides on one point is read whole by
// every nearby query around it; this keeps the stack bounded. Concurrent
// writers may overshoot by their number, which is still bounded.
func checkSpot(ctx context.Context, tx pgx.Tx, lat, lng float64, except string) error {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM guides
		WHERE location && _ST_Expand(`+point("$1", "$2")+`, $3) AND location <-> `+point("$1", "$2")+` <= $3 AND id <> $4
		LIMIT $5) s`, lat, lng, float64(guides.SpotRadiusM), except, guides.MaxGuidesPerSpot).Scan(&n)
	if err != nil {
		return translate(err, "guide")
	}
	if n >= guides.MaxGuidesPerSpot {
		msg := fmt.Sprintf("already holds %d guides within %d m: move the pin a little", guides.MaxGuidesPerSpot, guides.SpotRadiusM)
		return &guidepost.Error{Code: guidepost.EUNPROCESSABLE, Message: "this spot " + msg,
			Fields: []guidepost.FieldError{{Field: "lat", Code: guidepost.FLIMITREACHED, Message: msg}, {Field: "lng", Code: guidepost.FLIMITREACHED, Message: msg}}}
	}
	return nil
}

// nonNil keeps an absent list from being stored as NULL.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeError names what a foreign key violation means for a write.
func writeError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23503" {
		switch pgErr.ConstraintName {
		case "guides_author_id_fkey", "guide_likes_user_id_fkey":
			return guidepost.Wrap(guidepost.EUNAUTHORIZED, err, "your account no longer exists")
		case "guide_likes_guide_id_fkey", "guide_like_shards_guide_id_fkey", "guide_media_guide_id_fkey":
			return guidepost.Wrap(guidepost.ENOTFOUND, err, "guide not found")
		case "guide_media_media_id_fkey":
			return guidepost.Wrap(guidepost.EINVALID, err, "a photo was deleted meanwhile")
		}
	}
	return translate(err, "guide")
}

// checkMedia makes sure every id is a photo of author's that did not fail
// (guides.PhotoProblems). The rows are locked against deletion until the
// transaction ends.
func checkMedia(ctx context.Context, tx pgx.Tx, author string, ids, keep []string) error {
	if len(ids) == 0 {
		return nil
	}
	// FOR SHARE, not KEY SHARE: a photo being deleted (an UPDATE of its
	// row, then its removal from guides) waits for this guide to commit,
	// then takes the photo out of it too.
	found, err := photoRefs(ctx, tx, ids, " FOR SHARE")
	if err != nil {
		return err
	}
	return guides.PhotoProblems(author, ids, keep, found).Err()
}

// PhotoRefs reads the photos a guide write lists, outside its transaction.
func (s *Guides) PhotoRefs(ctx context.Context, ids []string) (map[string]guides.PhotoRef, error) {
	ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == "" })
	return photoRefs(ctx, s.db.Pool, ids, "")
}

func photoRefs(ctx context.Context, q querier, ids []string, lock string) (map[string]guides.PhotoRef, error) {
	rows, err := q.Query(ctx, `SELECT id::text, owner_id::text, status FROM media
		WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`+lock, ids)
	if err != nil {
		return nil, translate(err, "media")
	}
	found := map[string]guides.PhotoRef{}
	var id string
	var m guides.PhotoRef
	_, err = pgx.ForEachRow(rows, []any{&id, &m.OwnerID, &m.Status}, func() error {
		found[id] = m
		return nil
	})
	if err != nil {
		return nil, translate(err, "media")
	}
	return found, nil
}

func attachMedia(ctx context.Context, tx pgx.Tx, guideID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO guide_media (guide_id, media_id, position)
		SELECT $1, m.id, m.pos - 1 FROM unnest($2::uuid[]) WITH ORDINALITY AS m(id, pos)`, guideID, ids)
	return writeError(err)
}

// tileVersions reads, inside the writing transaction, the versions its
// statement trigger just gave the tiles.
func tileVersions(ctx context.Context, tx pgx.Tx, tiles ...int64) (map[int64]guides.TileState, error) {
	return scanTileStates(tx.Query(ctx, `SELECT tile, version, guides FROM guide_tiles WHERE tile = ANY($1)`, tiles))
}

// scanTileStates collects (tile, version, guides) rows by tile.
func scanTileStates(rows pgx.Rows, err error) (map[int64]guides.TileState, error) {
	if err != nil {
		return nil, err
	}
	out := map[int64]guides.TileState{}
	var tile int64
	var st guides.TileState
	_, err = pgx.ForEachRow(rows, []any{&tile, &st.Version, &st.Guides}, func() error {
		out[tile] = st
		return nil
	})
	return out, err
}

// OnTileWrite registers a hook called after each committed write with the
// versions of the tiles it touched.
func (s *Guides) OnTileWrite(fn func(tile int64, st guides.TileState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, fn)
}

func (s *Guides) tilesWritten(ctx context.Context, tiles map[int64]guides.TileState) {
	ids := make([]int64, 0, len(tiles))
	for tile := range tiles {
		ids = append(ids, tile)
	}
	s.db.tilesBumped(ctx, ids)
	s.mu.Lock()
	hooks := s.hooks
	s.mu.Unlock()
	for _, fn := range hooks {
		for tile, st := range tiles {
			fn(tile, st)
		}
	}
}

func (s *Guides) readGuide(ctx context.Context, id, viewerID string) (guides.Guide, error) {
	if !validUUID(id) {
		return guides.Guide{}, translate(pgx.ErrNoRows, "guide")
	}
	var viewer *string
	if validUUID(viewerID) {
		viewer = &viewerID
	}
	// Two statements, one round trip, whatever the number of photos.
	b := &pgx.Batch{}
	var g guides.Guide
	b.Queue(`SELECT g.id::text, g.author_id::text, u.display_name, g.title, g.body,
			ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags,
			g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint,
			$2::uuid IS NOT NULL AND EXISTS (SELECT 1 FROM guide_likes l WHERE l.guide_id = g.id AND l.user_id = $2::uuid),
			g.created_at, g.updated_at, g.hidden_at, coalesce(g.hidden_reason, '')
		FROM guides g JOIN users u ON u.id = g.author_id
		WHERE g.id = $1 AND (g.`+shown+` OR g.author_id = $2::uuid)`, id, viewer).
		QueryRow(func(row pgx.Row) error {
			var hiddenAt *time.Time
			var reason string
			err := row.Scan(&g.ID, &g.Author.ID, &g.Author.DisplayName, &g.Title, &g.Body, &g.Lat, &g.Lng, &g.Tags,
				&g.LikeCount, &g.LikedByMe, &g.CreatedAt, &g.UpdatedAt, &hiddenAt, &reason)
			g.Hidden = hold(hiddenAt, reason)
			return err
		})
	// A hidden photo shows in its guide to its owner only.
	b.Queue(`SELECT `+mediaColumns+`
		FROM guide_media gm JOIN media m ON m.id = gm.media_id
		WHERE gm.guide_id = $1 AND (m.`+shown+` OR m.owner_id = $2::uuid) ORDER BY gm.position`, id, viewer).
		Query(func(rows pgx.Rows) error {
			defer rows.Close()
			for rows.Next() {
				m, err := scanMedia(rows)
				if err != nil {
					return err
				}
				g.Media = append(g.Media, media.View{Media: m})
			}
			return rows.Err()
		})
	if err := s.db.on(ctx).SendBatch(ctx, b).Close(); err != nil {
		return guides.Guide{}, translate(err, "guide")
	}
	if g.Tags == nil {
		g.Tags = []string{}
	}
	if g.Media == nil {
		g.Media = []media.View{}
	}
	return g, nil
}

// hold is a guides.Hold from its columns, nil when not hidden.
func hold(at *time.Time, reason string) *guides.Hold {
	if at == nil {
		return nil
	}
	return &guides.Hold{Reason: reason, At: *at}
}

// lockDraft reads the writable state of a guide and locks its row.
func lockDraft(ctx context.Context, tx pgx.Tx, id string) (guides.Draft, error) {
	var d guides.Draft
	err := tx.QueryRow(ctx, `SELECT g.author_id::text, g.title, g.body, ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags,
			coalesce((SELECT array_agg(gm.media_id::text ORDER BY gm.position) FROM guide_media gm WHERE gm.guide_id = g.id), '{}'),
			g.updated_at
		FROM guides g WHERE g.id = $1 FOR UPDATE`, id).
		Scan(&d.AuthorID, &d.Title, &d.Body, &d.Lat, &d.Lng, &d.Tags, &d.MediaIDs, &d.UpdatedAt)
	return d, translate(err, "guide")
}

func (s *Guides) UpdateGuide(ctx context.Context, id string, apply func(*guides.Draft) error) error {
	if !validUUID(id) {
		return translate(pgx.ErrNoRows, "guide")
	}
	var versions map[int64]guides.TileState
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockDraft(ctx, tx, id)
		if err != nil {
			return err
		}
		d := before
		d.Tags = slices.Clone(before.Tags)
		d.MediaIDs = slices.Clone(before.MediaIDs)
		if err := apply(&d); err != nil {
			return err
		}
		if !slices.Equal(d.MediaIDs, before.MediaIDs) {
			if err := checkMedia(ctx, tx, d.AuthorID, d.MediaIDs, before.MediaIDs); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM guide_media WHERE guide_id = $1`, id); err != nil {
				return translate(err, "guide")
			}
			if err := attachMedia(ctx, tx, id, d.MediaIDs); err != nil {
				return err
			}
		}
		if d.Lat != before.Lat || d.Lng != before.Lng {
			if err := checkSpot(ctx, tx, d.Lat, d.Lng, id); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE guides SET title = $2, body = $3, location = `+point("$4", "$5")+`, tags = $6, updated_at = $7
			WHERE id = $1`, id, d.Title, d.Body, d.Lat, d.Lng, nonNil(d.Tags), d.UpdatedAt)
		if err != nil {
			return writeError(err)
		}
		versions, err = tileVersions(ctx, tx, guides.TileOf(before.Lat, before.Lng), guides.TileOf(d.Lat, d.Lng))
		return err
	})
	if err != nil {
		return err
	}
	s.tilesWritten(ctx, versions)
	return nil
}

func (s *Guides) DeleteGuide(ctx context.Context, id string, allow func(guides.Draft) error) error {
	if !validUUID(id) {
		return translate(pgx.ErrNoRows, "guide")
	}
	var versions map[int64]guides.TileState
	err := s.db.InTx(ctx, func(tx pgx.Tx) error {
		d, err := lockDraft(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := allow(d); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM guides WHERE id = $1`, id); err != nil {
			return translate(err, "guide")
		}
		versions, err = tileVersions(ctx, tx, guides.TileOf(d.Lat, d.Lng))
		return err
	})
	if err != nil {
		return err
	}
	s.tilesWritten(ctx, versions)
	return nil
}

// distanceMargin covers the difference between PostGIS's and Go's float
// arithmetic for the same great-circle distance (about 1e-9 m): SQL filters
// with it, then Go filters and orders exactly.
const distanceMargin = 0.01

// nearbySQL reads the guides nearest to ($1 lat, $2 lng) in the order of
// the geography GiST index (KNN: ORDER BY location <-> point), after the
// cursor distance $3 (or NULL), LIMIT $4. It has no other condition on
// purpose: the KNN scan is then the planner's only index path, so it can
// never pick a bitmap scan that fetches and sorts every candidate, and the
// work is LIMIT rows (plus the pages before a cursor) however dense the
// city. Rows beyond the radius are dropped by the caller. Photo covers and
// like counts are computed only for the rows the scan returns.
var nearbySQL = `SELECT ` + itemColumns + `, g.d
	FROM (SELECT ` + itemSource + `, location <-> ` + point("$1", "$2") + ` AS d
		FROM guides
		WHERE ($3::float8 IS NULL OR location <-> ` + point("$1", "$2") + ` >= $3) AND ` + shown + `
		ORDER BY location <-> ` + point("$1", "$2") + `
		LIMIT $4) g
	` + itemJoins

// nearbyTagSQL is the same search for guides carrying tag $5: a rare tag
// could leave the KNN scan walking the whole table, so the radius $6 bounds
// it (the condition ST_DWithin expands to; ST_DWithin itself carries a cost
// that makes the planner JIT-compile the query on every call).
var nearbyTagSQL = `SELECT ` + itemColumns + `, g.d
	FROM (SELECT ` + itemSource + `, location <-> ` + point("$1", "$2") + ` AS d
		FROM guides
		WHERE location && _ST_Expand(` + point("$1", "$2") + `, $6)
		  AND location <-> ` + point("$1", "$2") + ` <= $6
		  AND tags @> ARRAY[$5::text] AND ` + shown + `
		  AND ($3::float8 IS NULL OR location <-> ` + point("$1", "$2") + ` >= $3)
		ORDER BY location <-> ` + point("$1", "$2") + `
		LIMIT $4) g
	` + itemJoins

// readNearby answers from the KNN scan (see nearbySQL). Distances and the
// final order (distance, then id) are computed in Go with guides.Point,
// the function the cache uses, so both give the same answer to the bit.
// SQL orders by its own computation of the same sphere distance; a page is
// accepted only when no row SQL did not return can come before its last
// item or within the radius, else more rows are read.
func (s *Guides) readNearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	if q.Text != "" {
		if items, done, err := s.walkText(ctx, q); err != nil || done {
			return items, err
		}
	}
	return s.nearby(ctx, q)
}

// nearby reads pages of nearbyRows until the answer is exact.
func (s *Guides) nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	after := afterDistance(q)
	here := guides.PointAt(q.Lat, q.Lng)
	for fetch := q.Limit + 8; ; fetch = min(fetch*4, maxNearbyFetch) {
		rows, err := s.nearbyRows(ctx, q, after, fetch)
		if err != nil {
			return nil, translate(err, "guide")
		}
		var items []guides.Item
		fetched, farthest := 0, 0.0
		for rows.Next() {
			var d float64
			it, err := scanItem(rows, &d)
			if err != nil {
				rows.Close()
				return nil, err
			}
			fetched++
			farthest = max(farthest, d)
			it.DistanceM = here.DistanceTo(guides.PointAt(it.Lat, it.Lng))
			if it.DistanceM <= q.RadiusM && guides.Follows(guides.PositionOf(it.ID, it.DistanceM), q.After) {
				items = append(items, it)
			}
		}
		if err := rows.Err(); err != nil {
			return nil, translate(err, "guide")
		}
		guides.SortNearby(items)
		switch {
		case fetched < fetch: // every candidate was read
		case farthest > q.RadiusM+distanceMargin: // every guide within the radius was read
		case len(items) >= q.Limit && items[q.Limit-1].DistanceM+distanceMargin < farthest:
		case fetch == maxNearbyFetch: // bounded, see maxNearbyFetch
		default:
			continue
		}
		return truncate(items, q.Limit), nil
	}
}

// afterDistance is the cursor's distance less the margin (see
// distanceMargin), or nil without a cursor: SQL reads from there, Go
// keeps exactly what follows the cursor.
func afterDistance(q guides.NearbyQuery) *float64 {
	if q.After == nil {
		return nil
	}
	d := q.After.DistanceM - distanceMargin
	return &d
}

// nearbyRows runs the form of the nearby query that q needs.
func (s *Guides) nearbyRows(ctx context.Context, q guides.NearbyQuery, after *float64, fetch int) (pgx.Rows, error) {
	bound := q.RadiusM + distanceMargin
	switch {
	case q.Text != "":
		return s.db.on(ctx).Query(ctx, nearbyTextSQL, q.Lat, q.Lng, after, fetch, nullable(q.Tag), bound, q.Text)
	case q.Tag != "":
		return s.db.on(ctx).Query(ctx, nearbyTagSQL, q.Lat, q.Lng, after, fetch, q.Tag, bound)
	}
	return s.db.on(ctx).Query(ctx, nearbySQL, q.Lat, q.Lng, after, fetch)
}

// nullable passes "" as SQL NULL.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// maxNearbyFetch bounds the rows one nearby page fetches, and so how many
// times it asks again. Only guides stacked within a centimetre of one
// distance need more to be ordered exactly (their order is decided by id,
// which the KNN scan does not follow); past it the page is answered from
// the rows read. checkSpot bounds such stacks where they are written.
const maxNearbyFetch = 2048

func truncate(items []guides.Item, n int) []guides.Item {
	if len(items) > n {
		return items[:n]
	}
	return items
}

// readBBox answers a viewport with its newest guides (see bboxQuery for
// which form reads them). In the single-index form the planar index on
// location::geometry finds the rectangle (a geography "box" would have
// great-circle edges); for a viewport holding many guides the planner
// walks the primary key backwards instead and stops at the limit. The exact
// edge test runs here, on the stored float64 coordinates, as
// guides.BBox.Contains does for the cache: written in SQL it would hide
// the rectangle's selectivity from the planner (measured: a whole-country
// viewport took 720 ms instead of 21 ms).
func (s *Guides) readBBox(ctx context.Context, q guides.BBoxQuery) ([]guides.Item, bool, error) {
	before := q.Before
	if before == "" {
		before = lastID
	}
	st := bboxQuery(q, before)
	fetch, widen := q.Limit+9, 1
	for {
		items, fetched, cut, err := s.bboxPage(ctx, st, fetch, widen)
		if err != nil {
			return nil, false, err
		}
		switch {
		case len(items) > q.Limit:
			return items[:q.Limit], true, nil
		case cut:
			widen *= 4 // stopped at a cell's limit: read the cells deeper
		case fetched < fetch:
			return items, false, nil
		default:
			fetch *= 4
		}
	}
}

// bboxPage runs st for LIMIT fetch and keeps the rows inside q's rectangle;
// cut tells that the merge answered only down to a cell's limit (see
// bboxMergeSQL). The rows it returns are the newest, cut or not.
func (s *Guides) bboxPage(ctx context.Context, st bboxStatement, fetch, widen int) (items []guides.Item, fetched int, cut bool, err error) {
	rows, err := s.db.on(ctx).Query(ctx, st.sql, withPlanEach(st.at(fetch, widen))...)
	if err != nil {
		return nil, 0, false, translate(err, "guide")
	}
	defer rows.Close()
	var extra []any
	if st.cells != nil {
		extra = []any{&cut}
	}
	for rows.Next() {
		it, err := scanItem(rows, extra...)
		if err != nil {
			return nil, 0, false, err
		}
		fetched++
		if st.box.Contains(it.Lat, it.Lng) {
			items = append(items, it)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, translate(err, "guide")
	}
	return items, fetched, cut, nil
}

// bboxStatement is the form of the viewport query a page needs: the merge
// of cells (guides_viewport.go) when it has no tag or text and covers few
// enough cells, else the single-index form.
type bboxStatement struct {
	sql   string
	args  []any // args[5] is the LIMIT
	cells *cellCover
	box   guides.BBox
}

func bboxQuery(q guides.BBoxQuery, before string) bboxStatement {
	if cells := viewportCells(q.BBox); q.Tag == "" && q.Text == "" && cells != nil {
		return bboxStatement{sql: bboxMergeSQL, args: []any{q.BBox.MinLng, q.BBox.MinLat, q.BBox.MaxLng, q.BBox.MaxLat, before, 0, cells.ids},
			cells: cells, box: q.BBox}
	}
	args := []any{q.BBox.MinLng, q.BBox.MinLat, q.BBox.MaxLng, q.BBox.MaxLat, nullable(q.Tag), 0, before}
	if q.Text != "" {
		return bboxStatement{sql: bboxTextSQL, args: append(args, q.Text), box: q.BBox}
	}
	return bboxStatement{sql: bboxSQL, args: args, box: q.BBox}
}

// at is the statement's arguments for LIMIT fetch (widen: see limits).
func (st bboxStatement) at(fetch, widen int) []any {
	args := slices.Clone(st.args)
	args[5] = fetch
	if st.cells != nil {
		args = append(args, st.cells.limits(fetch, widen))
	}
	return args
}

// bboxSQL reads the newest guides in the rectangle ($1–$4) with tag $5
// (or NULL) older than $7, LIMIT $6; bboxTextSQL also matching text $8
// (its tsquery made once, see guides_search.go).
// The cursor is never NULL (lastID stands for none), so that "id < $7" is
// always a condition the primary key scan can start from, in a generic
// plan too.
var (
	bboxSQL = `SELECT ` + itemColumns + `
		FROM (SELECT ` + itemSource + ` FROM guides
			WHERE location::geometry && ST_MakeEnvelope($1, $2, $3, $4, 4326)
			  AND ($5::text IS NULL OR tags @> ARRAY[$5::text])
			  AND id < $7::uuid AND ` + shown + `
			ORDER BY id DESC LIMIT $6) g
		` + itemJoins + `
		ORDER BY g.id DESC`
	bboxTextSQL = `SELECT ` + itemColumns + `
		FROM (SELECT ` + itemSource + ` FROM guides
			WHERE location::geometry && ST_MakeEnvelope($1, $2, $3, $4, 4326)
			  AND ($5::text IS NULL OR tags @> ARRAY[$5::text])
			  AND id < $7::uuid AND ` + shown + `
			  AND search @@ (SELECT guide_search_query($8))
			ORDER BY id DESC LIMIT $6) g
		` + itemJoins + `
		ORDER BY g.id DESC`
)

// lastID is above every UUIDv7: "id < lastID" holds for every guide.
const lastID = "ffffffff-ffff-ffff-ffff-ffffffffffff"
