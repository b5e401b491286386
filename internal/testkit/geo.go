package testkit

import "math"

// Haversine is the great-circle distance in metres on the mean-radius
// sphere: the independent yardstick the brute-force nearby tests hold the
// service's answers against (PostGIS's spheroid is within 0.5% of it).
func Haversine(lat1, lng1, lat2, lng2 float64) float64 {
	const r = 6371008.771415059
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	dp, dl := p2-p1, (lng2-lng1)*math.Pi/180
	h := math.Sin(dp/2)*math.Sin(dp/2) + math.Cos(p1)*math.Cos(p2)*math.Sin(dl/2)*math.Sin(dl/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}
