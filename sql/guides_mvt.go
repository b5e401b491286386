package sql

import (
	"context"
	"encoding/json"

	"github.com/guidepost/guidepost/guides"
)

// mvtSQL encodes cells ($4…) as a tile with ST_AsMVT: cells of one guide in
// layer "guides", the others in layer "clusters". ST_AsMVTGeom drops the
// points outside the tile and its buffer. Two layers are two protobuf
// messages of the same repeated field, so their bytes concatenate into one
// tile. Properties that are NULL are left out of a feature. A guide
// carries its author_id, so that a client hides the authors its user
// blocks from the shared, anonymous tile (README: Blocking users).
const mvtSQL = `WITH f AS (
	SELECT ST_AsMVTGeom(ST_Transform(ST_SetSRID(ST_MakePoint(c.lng, c.lat), 4326), 3857),
	                    ST_TileEnvelope($1, $2, $3), $12, $13, true) AS geom, c.*
	FROM unnest($4::float8[], $5::float8[], $6::bigint[], $7::int[], $8::text[], $9::text[], $10::bigint[], $11::text[], $14::text[], $15::text[])
		AS c(lat, lng, n, zoom, id, title, likes, thumbhash, tags, author)
)
SELECT coalesce((SELECT ST_AsMVT(g, 'guides', $12, 'geom') FROM (
		SELECT geom, id, author AS author_id, title, likes AS like_count, NULLIF(thumbhash, '') AS thumbhash, tags
		FROM f WHERE n = 1 AND geom IS NOT NULL) g), '')
    || coalesce((SELECT ST_AsMVT(k, 'clusters', $12, 'geom') FROM (
		SELECT geom, n AS count, NULLIF(zoom, 0) AS expansion_zoom, id AS top_guide_id, NULLIF(thumbhash, '') AS top_thumbhash
		FROM f WHERE n > 1 AND geom IS NOT NULL) k), '')`

// readVectorTile is the tile's clusters (see guides.VectorTileQuery) through
// ST_AsMVT; nil when no cell's point falls in the tile.
func (s *Guides) readVectorTile(ctx context.Context, q guides.VectorTileQuery) ([]byte, error) {
	clusters, err := s.Clusters(ctx, q.Clusters())
	if err != nil || len(clusters) == 0 {
		return nil, err
	}
	n := len(clusters)
	lat, lng := make([]float64, n), make([]float64, n)
	count, zoom, likes := make([]int64, n), make([]int32, n), make([]int64, n)
	id, title, thumbhash, tags := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	author := make([]string, n)
	for i, c := range clusters {
		lat[i], lng[i], count[i], likes[i] = c.Lat, c.Lng, c.Count, c.Top.LikeCount
		id[i], title[i], thumbhash[i], author[i] = c.Top.ID, c.Top.Title, c.Top.Cover.ThumbHash, c.Top.Author.ID
		if c.Count > 1 {
			zoom[i] = int32(guides.ExpansionZoom(c.Bounds, q.Z))
		}
		// A tile's property cannot be a list: tags are a JSON array.
		t, err := json.Marshal(nonNil(c.Top.Tags))
		if err != nil {
			return nil, err
		}
		tags[i] = string(t)
	}
	var tile []byte
	err = s.db.on(ctx).QueryRow(ctx, mvtSQL, q.Z, q.X, q.Y, lat, lng, count, zoom, id, title, likes, thumbhash,
		guides.TileExtent, guides.TileBuffer, tags, author).Scan(&tile)
	if err != nil {
		return nil, translate(err, "guide")
	}
	if len(tile) == 0 {
		return nil, nil
	}
	return tile, nil
}
