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

// VersionKey appends to b what the version of r's answer is a hash of, as
// the stamps stand now; false when none can be named. Two equal keys are
// the same version: a caller that kept the version of a key (VersionOf)
// needs no hash to name it again.
func (r NearbyRead) VersionKey(b []byte) ([]byte, bool) {
	q := r.q
	if r.viewer != "" {
		return b, false
	}
	after := ""
	if q.After != nil {
		after = strconv.FormatFloat(q.After.DistanceM, 'g', -1, 64) + "/" + q.After.ID
	}
	return r.s.versionKey(b, circleTiles(q.Lat, q.Lng, q.RadiusM), true, "nearby", q.Lat, q.Lng, q.RadiusM, q.Limit, q.Tag, q.Text, after)
}

// VersionKey is NearbyRead.VersionKey's for a viewport.
func (r BBoxRead) VersionKey(b []byte) ([]byte, bool) {
	q := r.q
	if r.viewer != "" {
		return b, false
	}
	bb := q.BBox
	area := [4]int64{TileRow(bb.MinLat), TileRow(bb.MaxLat), TileCol(bb.MinLng), TileCol(bb.MaxLng)}
	return r.s.versionKey(b, area, true, "bbox", bb.MinLng, bb.MinLat, bb.MaxLng, bb.MaxLat, q.Limit, q.Tag, q.Text, q.Before)
}

// VersionKey is NearbyRead.VersionKey's for a clustering, which the
// viewer's blocks are part of.
func (r ClustersRead) VersionKey(b []byte) ([]byte, bool) {
	q := r.q
	viewer, ok := r.s.viewerVersion(r.viewer)
	if !ok {
		return b, false
	}
	bb := q.BBox
	parts := []any{"clusters", bb.MinLng, bb.MinLat, bb.MaxLng, bb.MaxLat, q.Zoom, q.Tag}
	if viewer != "" {
		parts = append(parts, viewer)
	}
	return r.s.versionKey(b, clusterTiles(q), false, parts...)
}

// VersionKey is NearbyRead.VersionKey's for a tile.
func (r TileRead) VersionKey(b []byte) ([]byte, bool) {
	q := r.q
	return r.s.versionKey(b, clusterTiles(q.Clusters()), false, "tile", q.Z, q.X, q.Y, q.Tag)
}

// Version names the version of r's answer as the stamps stand now; ""
// when none can be named.
func (r NearbyRead) Version() string { return versionOf(r.VersionKey(nil)) }

// Version names the version of r's answer as the stamps stand now.
func (r BBoxRead) Version() string { return versionOf(r.VersionKey(nil)) }

// Version names the version of r's answer as the stamps and the viewer's
// blocks stand now.
func (r ClustersRead) Version() string { return versionOf(r.VersionKey(nil)) }

// Version names the version of r's tile as the stamps stand now.
func (r TileRead) Version() string { return versionOf(r.VersionKey(nil)) }

func versionOf(key []byte, ok bool) string {
	if !ok {
		return ""
	}
	return VersionOf(key)
}

// VersionOf names the version a VersionKey stands for: the same on every
// process that follows the same database.
func VersionOf(key []byte) string {
	sum := sha256.Sum256(key)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
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

// VersionKeyRoom is room enough for a key without a text query, so a
// caller's stack buffer of it spares the allocation.
const VersionKeyRoom = 192

func (s *Service) versionKey(b []byte, area [4]int64, lists bool, parts ...any) ([]byte, bool) {
	if s.stamps == nil {
		return b, false
	}
	stamp, ok := s.stamps.AreaStamp(area[0], area[1], area[2], area[3])
	if !ok {
		return b, false
	}
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
	return b, true
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
