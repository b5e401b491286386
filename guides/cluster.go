package guides

import "math"

// ClusterCell is the cell of zoom's clustering grid that holds a location
// (see ClusterShift). Cells nest: a cell at zoom z+1 lies inside one cell
// at zoom z, since scaling by a power of two is exact in float64.
func ClusterCell(lat, lng float64, zoom int) (row, col int64) {
	if zoom <= MaxTileClusterZoom {
		s := ClusterShift(zoom)
		return TileRow(lat) >> s, TileCol(lng) >> s
	}
	f := ClusterCellsPerDegree(zoom)
	return int64(math.Floor(lat * f)), int64(math.Floor(lng * f))
}

// ExpansionZoom is the lowest zoom above zoom at which guides spread over
// b (their exact bounds) fall in more than one cell, so a cluster zoomed
// to it always splits; 0 when none up to MaxZoom does (guides a few metres
// apart). Cells are intervals in latitude and longitude, so the guides
// share a cell exactly when both corners of their bounds do.
func ExpansionZoom(b BBox, zoom int) int {
	for z := zoom + 1; z <= MaxZoom; z++ {
		r0, c0 := ClusterCell(b.MinLat, b.MinLng, z)
		r1, c1 := ClusterCell(b.MaxLat, b.MaxLng, z)
		if r0 != r1 || c0 != c1 {
			return z
		}
	}
	return 0
}

// Tiles is the rectangle of grid tiles (rows, then columns) a clustering
// counts the guides of: all the tiles of every cell it returns.
func (q ClusterQuery) Tiles() (r0, r1, c0, c1 int64) {
	r0, c0 = ClusterCell(q.BBox.MinLat, q.BBox.MinLng, q.Zoom)
	r1, c1 = ClusterCell(q.BBox.MaxLat, q.BBox.MaxLng, q.Zoom)
	if q.Zoom <= MaxTileClusterZoom {
		s := ClusterShift(q.Zoom)
		return r0 << s, (r1+1)<<s - 1, c0 << s, (c1+1)<<s - 1
	}
	// A finer cell lies in one tile: floor(lat·100·2^s) >> s is
	// floor(lat·100), scaling by a power of two being exact.
	s := uint(q.Zoom - MaxTileClusterZoom)
	return r0>>s + tileRowOffset, r1>>s + tileRowOffset, c0>>s + tileColOffset, c1>>s + tileColOffset
}

// CoordDecimals is how many decimals a coordinate guidepost computes (a
// centroid, a bound) is shown with: about a centimetre.
const CoordDecimals = 7

// RoundCoord rounds a computed coordinate to CoordDecimals. Dividing the
// rounded integer by 1e7 gives the float64 nearest that decimal, which
// prints without float noise (126.984282, not 126.98428200000001).
func RoundCoord(v float64) float64 { return math.Round(v*1e7) / 1e7 }

// outward rounds a box to CoordDecimals away from its centre, so the
// rounded box still holds every guide the exact one held.
func (b BBox) outward() BBox {
	return BBox{MinLng: roundDown(b.MinLng), MinLat: roundDown(b.MinLat), MaxLng: roundUp(b.MaxLng), MaxLat: roundUp(b.MaxLat)}
}

// roundDown and roundUp take the nearest 7-decimal value, then step
// once if it lies on the wrong side: the product v*1e7 is itself rounded,
// so floor and ceiling of it can be one off either way.
func roundDown(v float64) float64 {
	n := math.Round(v * 1e7)
	if n/1e7 > v {
		n--
	}
	return n / 1e7
}

func roundUp(v float64) float64 {
	n := math.Round(v * 1e7)
	if n/1e7 < v {
		n++
	}
	return n / 1e7
}

// shown is a cluster as answers show it: coordinates rounded, and the
// zoom at which it opens.
func (c Cluster) shown(zoom int) Cluster {
	c.ExpansionZoom = 0
	if c.Count > 1 {
		c.ExpansionZoom = ExpansionZoom(c.Bounds, zoom)
	}
	c.Lat, c.Lng = RoundCoord(c.Lat), RoundCoord(c.Lng)
	c.Bounds = c.Bounds.outward()
	return c
}
