package cache

import (
	"math"

	"github.com/guidepost/guidepost/guides"
)

// boundMargin absorbs float rounding in the bounds below (a point can sit
// ~1e-14° outside its tile's nominal rectangle, ~1e-9 m): a bound is only
// trusted when it clears the comparison by this much.
const boundMargin = 0.01

// metresPerDegree along a meridian, on guidepost's sphere.
const metresPerDegree = guides.EarthRadiusM * math.Pi / 180

// hav is the haversine of an angle in radians.
func hav(x float64) float64 {
	s := math.Sin(x / 2)
	return s * s
}

func fromHav(h float64) float64 {
	if h > 1 {
		h = 1
	}
	return 2 * guides.EarthRadiusM * math.Asin(math.Sqrt(h))
}

// rectLowerBound is a distance no guide in a tile or part with these
// bounds can be closer to p than. For q in the rectangle, hav(d) = hav(Δφ) + cosφp·cosφq·hav(Δλ), each
// term at least its value at the tile's nearest latitude, nearest longitude
// and smallest cosine (cos is smallest at an end of a latitude range).
func rectLowerBound(p guides.Point, minLat, minLng, maxLat, maxLng float64) float64 {
	var dLat, dLng float64
	switch {
	case p.Lat < minLat:
		dLat = minLat - p.Lat
	case p.Lat > maxLat:
		dLat = p.Lat - maxLat
	}
	switch {
	case p.Lng < minLng:
		dLng = minLng - p.Lng
	case p.Lng > maxLng:
		dLng = p.Lng - maxLng
	}
	if dLat == 0 && dLng == 0 {
		return 0
	}
	rad := math.Pi / 180
	cmin := math.Min(math.Cos(minLat*rad), math.Cos(maxLat*rad))
	h := hav(dLat*rad) + math.Cos(p.Lat*rad)*cmin*hav(dLng*rad)
	return fromHav(h) - boundMargin
}

// exitBound is a distance every guide outside the block of tiles within n
// rings of (row, col) is at least from p: the nearest of the block's four
// edges. A parallel north or south is reached no sooner than along the
// meridian; a meridian east or west no sooner than its great circle, at
// asin(cosφ·sinΔλ).
func exitBound(p guides.Point, row, col int64, n int64) float64 {
	south, west, _, _ := guides.TileBounds(row-n, col-n)
	_, _, north, east := guides.TileBounds(row+n, col+n)
	rad := math.Pi / 180
	cos := math.Cos(p.Lat * rad)
	d := math.Min((north-p.Lat)*metresPerDegree, (p.Lat-south)*metresPerDegree)
	d = math.Min(d, guides.EarthRadiusM*math.Asin(cos*math.Sin((east-p.Lng)*rad)))
	d = math.Min(d, guides.EarthRadiusM*math.Asin(cos*math.Sin((p.Lng-west)*rad)))
	return d - boundMargin
}

// ring lists the tiles at Chebyshev distance n from (row, col).
func ring(row, col, n int64, out []int64) []int64 {
	out = out[:0]
	if n == 0 {
		return append(out, guides.TileID(row, col))
	}
	for c := col - n; c <= col+n; c++ {
		out = append(out, guides.TileID(row-n, c), guides.TileID(row+n, c))
	}
	for r := row - n + 1; r <= row+n-1; r++ {
		out = append(out, guides.TileID(r, col-n), guides.TileID(r, col+n))
	}
	return out
}

// inCacheDomain keeps the cache away from the poles and the antimeridian,
// where the grid wraps or its cells degenerate: such searches go to the
// database, which handles them.
func inCacheDomain(lat, lng float64) bool {
	return lat > -80 && lat < 80 && lng > -179 && lng < 179
}
