package main

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// area is a cluster of guides and of map-screen traffic.
type area struct {
	name     string
	lat, lng float64
	sigma    float64 // degrees; ~0.05° is 5 km
	weight   float64
}

// Dense cities plus sparse coverage of the rest of South Korea: a cache or
// index that only works for dense cells, or only for empty ones, shows up.
var areas = []area{
	{"seoul", 37.5665, 126.9780, 0.06, 0.45},
	{"busan", 35.1796, 129.0756, 0.04, 0.20},
	{"jeju", 33.4996, 126.5312, 0.08, 0.15},
}

// sparseBox covers mainland South Korea; the remaining weight lands here.
var sparseBox = bbox{minLng: 126.3, minLat: 34.3, maxLng: 129.4, maxLat: 38.3}

type bbox struct{ minLng, minLat, maxLng, maxLat float64 }

func (b bbox) param() string {
	return fmtCoord(b.minLng) + "," + fmtCoord(b.minLat) + "," + fmtCoord(b.maxLng) + "," + fmtCoord(b.maxLat)
}

func fmtCoord(v float64) string { return strconv.FormatFloat(v, 'f', 5, 64) }

// anyRand draws from the process-wide generator: for draws that need not
// repeat between runs.
var anyRand = rand.New(globalSource{})

type globalSource struct{}

func (globalSource) Uint64() uint64 { return rand.Uint64() }

// traceRand is the generator of arrival slot in a trace of seed: two runs
// with one seed send the same requests in the same order, so that their
// latencies compare query for query (map queries' costs differ by orders
// of magnitude, and a few heavy viewports more or less move a p95).
func traceRand(seed uint64, slot int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(slot)))
}

// randomPoint draws a point: around a city (Gaussian) or anywhere sparse.
func randomPoint(r *rand.Rand) (lat, lng float64) {
	u := r.Float64()
	for _, a := range areas {
		if u < a.weight {
			return a.lat + r.NormFloat64()*a.sigma, a.lng + r.NormFloat64()*a.sigma*1.2
		}
		u -= a.weight
	}
	b := sparseBox
	return b.minLat + r.Float64()*(b.maxLat-b.minLat), b.minLng + r.Float64()*(b.maxLng-b.minLng)
}

// randomRadius draws 500 m – 5 km, log-uniform: small radii are as common
// as large ones per decade, as zoom levels are.
func randomRadius(r *rand.Rand) float64 {
	return math.Round(500 * math.Pow(10, r.Float64()))
}

// randomViewport is a phone map screen (portrait) 0.01°–0.2° wide.
func randomViewport(r *rand.Rand) bbox {
	lat, lng := randomPoint(r)
	w := 0.01 * math.Pow(20, r.Float64())
	h := w * 1.6
	return bbox{minLng: lng - w/2, minLat: lat - h/2, maxLng: lng + w/2, maxLat: lat + h/2}
}

// areaBox is the discovery viewport of an area, or the sparse box.
func areaBox(a area) bbox {
	d := 3 * a.sigma
	return bbox{minLng: a.lng - d, minLat: a.lat - d, maxLng: a.lng + d, maxLat: a.lat + d}
}
