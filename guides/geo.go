package guides

import "math"

// EarthRadiusM is the radius of PostGIS's WGS84 sphere, (2a+b)/3: the
// sphere that the geography KNN operator (<->) measures on. Every nearby
// distance in guidepost, whether computed by the database or by the cache,
// is the great-circle distance on this sphere, so one metric decides the
// radius filter, the order, the cursor and the distance shown. It is within
// 0.5% of the WGS84 geodesic everywhere.
const EarthRadiusM = 6371008.771415059

const degToRad = math.Pi / 180

// Point is a location with its trigonometry computed once, so that a cache
// scanning thousands of guides per request pays for it once per guide.
type Point struct {
	Lat, Lng float64
	phi, lam float64 // radians
	cosPhi   float64
}

// PointAt makes a Point from degrees.
func PointAt(lat, lng float64) Point {
	phi := lat * degToRad
	return Point{Lat: lat, Lng: lng, phi: phi, lam: lng * degToRad, cosPhi: math.Cos(phi)}
}

// DistanceTo is the haversine great-circle distance in metres. The store
// and the cache both call it on the same float64 inputs, so they agree to
// the last bit; the explicit float64 conversions stop the compiler from
// fusing multiply-adds differently at different call sites.
func (p Point) DistanceTo(q Point) float64 {
	sdp := math.Sin((q.phi - p.phi) / 2)
	sdl := math.Sin((q.lam - p.lam) / 2)
	h := float64(sdp*sdp) + float64(float64(p.cosPhi*q.cosPhi)*float64(sdl*sdl))
	if h > 1 {
		h = 1
	}
	return 2 * EarthRadiusM * math.Asin(math.Sqrt(h))
}

// Distance is DistanceTo for two pairs of degrees.
func Distance(lat1, lng1, lat2, lng2 float64) float64 {
	return PointAt(lat1, lng1).DistanceTo(PointAt(lat2, lng2))
}

// The grid: 0.01° cells ("tiles"), numbered as the SQL function guide_tile
// numbers them (migrations/00016_baseline.sql). floor(lat*100) in float64 is
// the same IEEE operation in Go and in PostgreSQL, so both put every guide
// in the same tile.
const (
	TilesPerDegree = 100
	tileRowOffset  = 90 * TilesPerDegree  // rows 0 … 18000
	tileColOffset  = 180 * TilesPerDegree // columns 0 … 36000
	tileStride     = 40000
)

// TileRow and TileCol give the grid row of a latitude and column of a
// longitude.
func TileRow(lat float64) int64 { return int64(math.Floor(lat*TilesPerDegree)) + tileRowOffset }
func TileCol(lng float64) int64 { return int64(math.Floor(lng*TilesPerDegree)) + tileColOffset }

// TileOf numbers the tile that holds a location.
func TileOf(lat, lng float64) int64 { return TileID(TileRow(lat), TileCol(lng)) }

// TileID numbers the tile at a grid row and column.
func TileID(row, col int64) int64 { return row*tileStride + col }

// TileRowCol splits a tile number.
func TileRowCol(tile int64) (row, col int64) { return tile / tileStride, tile % tileStride }

// TileBounds is the rectangle of a tile in degrees. Rounding in lat*100 can
// put a point a few 1e-14° outside it; callers allow a margin.
func TileBounds(row, col int64) (minLat, minLng, maxLat, maxLng float64) {
	minLat = float64(row-tileRowOffset) / TilesPerDegree
	minLng = float64(col-tileColOffset) / TilesPerDegree
	return minLat, minLng, float64(row-tileRowOffset+1) / TilesPerDegree, float64(col-tileColOffset+1) / TilesPerDegree
}

// Clustering grid. At zoom z ≤ MaxTileClusterZoom a cluster cell is 2^(13-z)
// tiles on a side (0.01° at zoom 13, 81.92° at zoom 0: roughly 64 pixels of
// a 256-pixel map tile), so cells are whole tiles and the store can add up
// per-tile counts. Above it, a cell is a 2^(z-13)th of a tile.
const MaxTileClusterZoom = 13

// ClusterShift is log2 of a cluster cell's side in tiles (zoom ≤ 13).
func ClusterShift(zoom int) uint { return uint(MaxTileClusterZoom - zoom) }

// ClusterCellsPerDegree is how many cluster cells span one degree at a zoom
// above MaxTileClusterZoom.
func ClusterCellsPerDegree(zoom int) float64 {
	return TilesPerDegree * float64(int64(1)<<uint(zoom-MaxTileClusterZoom))
}

// ClusterCellCount is how many cluster cells a viewport touches at zoom.
func ClusterCellCount(b BBox, zoom int) int64 {
	if zoom <= MaxTileClusterZoom {
		s := ClusterShift(zoom)
		rows := TileRow(b.MaxLat)>>s - TileRow(b.MinLat)>>s + 1
		cols := TileCol(b.MaxLng)>>s - TileCol(b.MinLng)>>s + 1
		return rows * cols
	}
	f := ClusterCellsPerDegree(zoom)
	rows := int64(math.Floor(b.MaxLat*f)) - int64(math.Floor(b.MinLat*f)) + 1
	cols := int64(math.Floor(b.MaxLng*f)) - int64(math.Floor(b.MinLng*f)) + 1
	return rows * cols
}
