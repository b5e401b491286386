package guides

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/guidepost/guidepost/media"
)

// Stamps tells, without reading the database, what the guides of an area
// were when map answers over it were built. The cache implements it from
// the tile versions and like counts it follows.
type Stamps interface {
	// AreaStamp changes whenever a guide in tile rows r0..r1 and columns
	// c0..c1 (TileRow, TileCol) is created, moved in or out, edited,
	// deleted, or liked; false while it cannot be known.
	AreaStamp(r0, r1, c0, c1 int64) (uint64, bool)
}

// A map read's version is a hash of what its answer depends on: the route,
// the validated query, the stamp of the tiles whose guides it can show,
// and for lists the window their next_cursor is issued in and the hour
// their photo URLs are signed for. The same version
// means the same answer, on any process that follows the same database;
// "" means none can be given (no stamps, or the cache is not following).
// Computing one reads nothing but memory. A list asked by a signed-in
// caller has none: its liked_by_me and like counts are read for the caller,
// and no tile version follows one person's likes. A clustering asked by
// a blocker is named by whom they block, as its counts leave them out.

// Version names the version of r's answer as the stamps stand now.
func (r NearbyRead) Version() string {
	q := r.q
	if r.viewer != "" {
		return ""
	}
	after := ""
	if q.After != nil {
		after = strconv.FormatFloat(q.After.DistanceM, 'g', -1, 64) + "/" + q.After.ID
	}
	return r.s.version(circleTiles(q.Lat, q.Lng, q.RadiusM), true, "nearby", q.Lat, q.Lng, q.RadiusM, q.Limit, q.Tag, q.Text, after)
}

// Version names the version of r's answer as the stamps stand now.
func (r BBoxRead) Version() string {
	q := r.q
	if r.viewer != "" {
		return ""
	}
	b := q.BBox
	area := [4]int64{TileRow(b.MinLat), TileRow(b.MaxLat), TileCol(b.MinLng), TileCol(b.MaxLng)}
	return r.s.version(area, true, "bbox", b.MinLng, b.MinLat, b.MaxLng, b.MaxLat, q.Limit, q.Tag, q.Text, q.Before)
}

// Version names the version of r's answer as the stamps and the viewer's
// blocks stand now.
func (r ClustersRead) Version() string {
	q := r.q
	viewer, ok := r.s.viewerVersion(r.viewer)
	if !ok {
		return ""
	}
	b := q.BBox
	parts := []any{"clusters", b.MinLng, b.MinLat, b.MaxLng, b.MaxLat, q.Zoom, q.Tag}
	if viewer != "" {
		parts = append(parts, viewer)
	}
	return r.s.version(clusterTiles(q), false, parts...)
}

// Version names the version of r's tile as the stamps stand now.
func (r TileRead) Version() string {
	q := r.q
	return r.s.version(clusterTiles(q.Clusters()), false, "tile", q.Z, q.X, q.Y, q.Tag)
}

func clusterTiles(q ClusterQuery) [4]int64 {
	r0, r1, c0, c1 := q.Tiles()
	return [4]int64{r0, r1, c0, c1}
}

// answerFormat changes whenever answers are encoded differently, so that
// no client keeps an old encoding under a version the new one shares (2:
// the guides layer of vector tiles carries author_id; 3: list covers
// carry width, height, urls.marker and urls.formats).
const answerFormat = "3"

func (s *Service) version(area [4]int64, lists bool, parts ...any) string {
	if s.stamps == nil {
		return ""
	}
	stamp, ok := s.stamps.AreaStamp(area[0], area[1], area[2], area[3])
	if !ok {
		return ""
	}
	b := make([]byte, 0, 128)
	b = append(b, answerFormat...)
	b = binary.BigEndian.AppendUint64(b, stamp)
	if lists {
		// Cursors and cover URLs are made per window: a new window, new
		// answers.
		now := s.clock.Now().UTC()
		b = strconv.AppendInt(b, now.Truncate(cursorIssueWindow).Unix(), 10)
		b = strconv.AppendInt(b, now.Truncate(media.StableURLWindow).Unix(), 10)
	}
	for _, p := range parts {
		b = append(b, 0)
		switch v := p.(type) {
		case string:
			b = append(b, v...)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case float64:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
		default:
			panic("guides: version of an unexpected part")
		}
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// circleTiles is a rectangle of tiles holding every point within radius
// metres of (lat, lng) on guidepost's sphere, with a little room for
// rounding: all longitudes when the circle reaches a pole or the
// antimeridian. A circle of angular radius δ spans δ of latitude and
// asin(sin δ / cos φ) of longitude.
func circleTiles(lat, lng, radius float64) [4]int64 {
	delta := radius / EarthRadiusM
	d := delta/degToRad*1.001 + 1e-9
	south, north := max(lat-d, -90), min(lat+d, 90)
	west, east := -180.0, 180.0
	if north < 90 && south > -90 {
		w := math.Asin(min(math.Sin(delta)/math.Cos(lat*degToRad), 1))/degToRad*1.001 + 1e-9
		if lng-w > -180 && lng+w < 180 {
			west, east = lng-w, lng+w
		}
	}
	return [4]int64{TileRow(south), TileRow(north), TileCol(west), TileCol(east)}
}
