package cache

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/guidepost/guidepost/guides"
)

// nearby visits tiles in rings around the query's tile and keeps the best
// Limit by the nearby order, until no unvisited tile can hold a closer
// guide, or the radius is passed.
func (c *Guides) nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, string) {
	here := guides.PointAt(q.Lat, q.Lng)
	row, col := guides.TileRow(q.Lat), guides.TileCol(q.Lng)
	best := topK{k: q.Limit, list: make([]scored, 0, q.Limit+1)}
	var ids []int64
	scanned := 0
	for n := int64(0); n <= int64(c.opt.MaxRings); n++ {
		bound := q.RadiusM
		if best.full() {
			bound = min(bound, best.worst())
		}
		var reason string
		if ids, reason = c.ringTiles(here, row, col, n, bound, ids[:0], &scanned); reason != "" {
			return nil, reason
		}
		entries, reason := c.tiles(ctx, ids)
		if reason != "" {
			return nil, reason
		}
		for _, e := range entries {
			if e.tooLarge {
				return nil, "too_large"
			}
			c.scan(e, here, q, &best)
		}
		exit := exitBound(here, row, col, n)
		if exit > q.RadiusM || best.full() && best.worst() < exit {
			return best.items(c), ""
		}
	}
	return nil, "too_many_tiles"
}

// ringTiles appends to ids the tiles of ring n that may hold a guide within
// bound of here. It decides from the known counts before loading anything:
// a search that would read too much (a rare tag in a city, a deep page) is
// the database's job.
func (c *Guides) ringTiles(here guides.Point, row, col, n int64, bound float64, ids []int64, scanned *int) ([]int64, string) {
	for _, t := range ring(row, col, n, nil) {
		r, cl := guides.TileRowCol(t)
		if tileLowerBound(here, r, cl) > bound {
			continue
		}
		g := c.vers.state(t).Guides
		if g > c.opt.MaxTileGuides {
			return nil, "too_large"
		}
		if *scanned += g; *scanned > c.opt.MaxScan {
			return nil, "too_many_guides"
		}
		ids = append(ids, t)
	}
	return ids, ""
}

// scan offers every guide of e that matches q to best. It walks out from
// the query's latitude both ways, the nearer latitude first, and stops at
// the first guide whose meridian arc alone (never longer than the
// distance) passes the limit: every guide left is farther still.
func (c *Guides) scan(e *entry, here guides.Point, q guides.NearbyQuery, best *topK) {
	qSqrtCos := sqrtCos(q.Lat)
	hi, _ := slices.BinarySearchFunc(e.byLat, q.Lat, func(i int32, lat float64) int { return cmp.Compare(e.items[i].Lat, lat) })
	lo := hi - 1
	for lo >= 0 || hi < len(e.byLat) {
		var it *cachedItem
		if hi < len(e.byLat) && (lo < 0 || e.items[e.byLat[hi]].Lat-q.Lat <= q.Lat-e.items[e.byLat[lo]].Lat) {
			it, hi = &e.items[e.byLat[hi]], hi+1
		} else {
			it, lo = &e.items[e.byLat[lo]], lo-1
		}
		limit := q.RadiusM
		if best.full() {
			limit = min(limit, best.worst())
		}
		if math.Abs(it.Lat-q.Lat)*metresPerDegree > limit+boundMargin {
			return
		}
		// A parallel arc bounds it from below as well, without trigonometry.
		if parallelBound(math.Abs(it.Lng-q.Lng), qSqrtCos*it.sqrtCos) > limit+boundMargin {
			continue
		}
		if q.Tag != "" && !slices.Contains(it.Tags, q.Tag) {
			continue
		}
		d := here.DistanceTo(it.pt)
		if d > q.RadiusM {
			continue
		}
		if !guides.Follows(guides.PositionOf(it.ID, d), q.After) {
			continue
		}
		best.offer(it, d)
	}
}

// parallelBound is a lower bound of the distance between two points dLng
// degrees of longitude apart, from hav(d/R) ≥ cos φ₁ cos φ₂ sin²(Δλ/2),
// sin x ≥ x − x³/6 (x ≥ 0) and asin s ≥ s, without trigonometry;
// cosRoots is √(cos φ₁ cos φ₂). Past x = 1 it gives up (returns 0).
func parallelBound(dLng, cosRoots float64) float64 {
	x := dLng * (math.Pi / 180) / 2
	if x >= 1 {
		return 0
	}
	return 2 * guides.EarthRadiusM * cosRoots * x * (1 - x*x/6)
}

func sqrtCos(lat float64) float64 { return math.Sqrt(max(0, math.Cos(lat*math.Pi/180))) }

// topK keeps the k smallest (distance, id).
type topK struct {
	k    int
	list []scored // sorted
}

type scored struct {
	it *cachedItem
	d  float64
}

func (t *topK) full() bool { return len(t.list) >= t.k }

func (t *topK) worst() float64 { return t.list[len(t.list)-1].d }

func less(a, b scored) bool {
	return guides.PositionOf(a.it.ID, a.d).Before(guides.PositionOf(b.it.ID, b.d))
}

func (t *topK) offer(it *cachedItem, d float64) {
	s := scored{it, d}
	if t.full() {
		if !less(s, t.list[len(t.list)-1]) {
			return
		}
		t.list = t.list[:len(t.list)-1]
	}
	i, _ := slices.BinarySearchFunc(t.list, s, func(x, s scored) int {
		if less(x, s) {
			return -1
		}
		return 1
	})
	t.list = slices.Insert(t.list, i, s)
}

func (t *topK) items(c *Guides) []guides.Item {
	out := make([]guides.Item, len(t.list))
	for i, s := range t.list {
		out[i] = c.item(s.it)
		out[i].DistanceM = s.d
	}
	return out
}
