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
// guide, or the radius is passed. Within a ring it reads cells (whole
// tiles, or the parts of a dense tile) nearest first, a batch of about
// nearbyBatchGuides at a time, and drops every cell the best so far rules
// out: in a dense tile a search reads the few parts around the point, not
// the tile. A cell memory lacks sends the search to the database ("cold")
// only if the cells it holds leave that one in play; what to load is then
// decided by the database's answer (fillNearby), not here.
func (c *Guides) nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, string) {
	here := guides.PointAt(q.Lat, q.Lng)
	row, col := guides.TileRow(q.Lat), guides.TileCol(q.Lng)
	best := topK{k: q.Limit, list: make([]scored, 0, q.Limit+1)}
	var todo []cell
	var keys []int64
	scanned, dense := 0, false
	for n := int64(0); n <= int64(c.opt.MaxRings); n++ {
		var reason string
		if todo, reason = c.ringCells(here, row, col, n, best.bound(q.RadiusM), todo); reason != "" {
			return nil, reason
		}
		for {
			todo = nearest(todo, best.bound(q.RadiusM))
			if len(todo) == 0 {
				break
			}
			k := 0
			for got := 0; k < len(todo) && (k == 0 || got < nearbyBatchGuides); k++ {
				g := c.guidesIn(todo[k].key)
				got, scanned, dense = got+g, scanned+g, dense || isSubKey(todo[k].key)
			}
			if scanned > c.opt.MaxScan {
				return nil, "too_many_guides"
			}
			keys = keys[:0]
			for _, cl := range todo[:k] {
				keys = append(keys, cl.key)
			}
			entries, missing, reason := c.lookup(ctx, keys)
			if reason != "" {
				return nil, reason
			}
			for _, e := range entries {
				if e.tooLarge {
					return nil, "too_large"
				}
				c.scan(e, here, q, &best)
			}
			if needed(todo[:k], missing, best.bound(q.RadiusM)) {
				return nil, "cold"
			}
			todo = todo[k:]
		}
		exit := exitBound(here, row, col, n)
		if exit > q.RadiusM || best.full() && best.worst() < exit {
			if dense {
				c.m.denseAnswers.WithLabelValues("nearby").Inc()
			}
			return best.items(c), ""
		}
	}
	return nil, "too_many_tiles"
}

// needed says whether a cell of batch that memory lacks may still hold a
// guide within bound (scanning the rest may have ruled it out).
func needed(batch []cell, missing []int64, bound float64) bool {
	for _, cl := range batch {
		if cl.lb <= bound && slices.Contains(missing, cl.key) {
			return true
		}
	}
	return false
}

// nearbyBatchGuides is about how many guides nearby reads between two
// prunings of the cells left: enough for a page, few enough that the
// bound it gives drops most of a dense tile unread.
const nearbyBatchGuides = 1000

// cell is an entry a nearby search may read, with a distance no guide in
// it can be closer than.
type cell struct {
	key int64
	lb  float64
}

// nearest keeps the cells that may hold a guide within bound, nearest
// first.
func nearest(todo []cell, bound float64) []cell {
	todo = slices.DeleteFunc(todo, func(cl cell) bool { return cl.lb > bound })
	slices.SortFunc(todo, func(a, b cell) int { return cmp.Compare(a.lb, b.lb) })
	return todo
}

// ringCells appends to todo the cells of ring n that may hold a guide
// within bound of here: whole tiles, or the parts of dense ones.
func (c *Guides) ringCells(here guides.Point, row, col, n int64, bound float64, todo []cell) ([]cell, string) {
	for _, t := range ring(row, col, n, nil) {
		r, cl := guides.TileRowCol(t)
		minLat, minLng, maxLat, maxLng := guides.TileBounds(r, cl)
		lb := rectLowerBound(here, minLat, minLng, maxLat, maxLng)
		if lb > bound {
			continue
		}
		switch div := c.division(c.vers.state(t).Guides); div {
		case 0:
			return nil, "too_large"
		case 1:
			todo = append(todo, cell{t, lb})
		default:
			for sr := range div {
				for sc := range div {
					s := guides.SubTile{Tile: t, Div: div, Row: sr, Col: sc}
					minLat, minLng, maxLat, maxLng := s.Bounds()
					if lb := rectLowerBound(here, minLat, minLng, maxLat, maxLng); lb <= bound {
						todo = append(todo, cell{subKey(s), lb})
					}
				}
			}
		}
	}
	return todo, ""
}

// fillNearby queues the loads of the cells a search for q reads, now
// that the database's answer tells how far it reaches: every cell nearer
// than its Limit-th guide (or the radius, on a short page). The cells
// beyond, which the search would rule out, are not loaded: a miss within
// a 5 km radius would otherwise load every tile of the radius for a page
// of 20, and such loads push out of memory what answers use. Nothing is
// loaded for a search the cache would give up anyway. Called only for a
// "cold" miss, which the fallback checks (synced, domain, text) passed.
func (c *Guides) fillNearby(q guides.NearbyQuery, items []guides.Item) {
	bound := q.RadiusM
	if len(items) >= q.Limit && q.Limit > 0 {
		bound = min(bound, items[len(items)-1].DistanceM+boundMargin)
	}
	here := guides.PointAt(q.Lat, q.Lng)
	row, col := guides.TileRow(q.Lat), guides.TileCol(q.Lng)
	var cells []cell
	var missing []int64
	scanned := 0
	for n := int64(0); n <= int64(c.opt.MaxRings); n++ {
		var reason string
		if cells, reason = c.ringCells(here, row, col, n, bound, cells[:0]); reason != "" {
			return
		}
		for _, cl := range cells {
			if scanned += c.guidesIn(cl.key); scanned > c.opt.MaxScan {
				return
			}
			if v := c.version(cl.key); v > 0 {
				if e, ok := c.l1.GetIfPresent(cl.key); !ok || e.version < v {
					missing = append(missing, cl.key)
				}
			}
		}
		if exitBound(here, row, col, n) > bound {
			if len(missing) > 0 {
				c.fill(fillJob{ids: missing})
			}
			return
		}
	}
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

// bound is how far a guide may be and still enter: the radius, or the
// Limit-th distance once there are Limit.
func (t *topK) bound(radius float64) float64 {
	if t.full() {
		return min(radius, t.worst())
	}
	return radius
}

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
