package cache

import (
	"context"
	"slices"
	"time"

	"github.com/guidepost/guidepost/guides"
)

// The fallback decisions. A search is answered from tiles only when the
// cache follows every version, the search is away from the poles and the
// antimeridian, it has no text to match (tiles hold no guide bodies: a
// text search is the full-text index's job), and it would read little
// enough (MaxTileGuides, MaxScan,
// MaxRings, MaxBBoxTiles, MaxBBoxGuides); any load error also sends it to
// the store. Each decision is counted by its reason. The store's answer
// is shared by identical misses under way at once (misses.go).

// Nearby answers from tiles, or from the store when it cannot.
func (c *Guides) Nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	defer c.misses.start()()
	items, reason := c.nearbyFromTiles(ctx, q)
	if reason != "" {
		c.fallback("nearby", reason)
		start := time.Now()
		s, err := c.misses.do(ctx, nearbyKey(q), func(ctx context.Context) (shared, error) {
			items, err := c.Store.Nearby(ctx, q)
			return shared{items: items}, err
		})
		if err == nil && reason == "cold" {
			c.budget.missed(savedNearby, time.Since(start))
			c.fillNearby(q, s.items)
		}
		return s.items, err
	}
	c.budget.hit(savedNearby)
	c.m.answers.WithLabelValues("nearby", "cache").Inc()
	return items, nil
}

// InBBox answers a viewport from the tiles it covers, or from the store
// when it cannot.
func (c *Guides) InBBox(ctx context.Context, q guides.BBoxQuery) ([]guides.Item, bool, error) {
	defer c.misses.start()()
	items, truncated, reason := c.bboxFromTiles(ctx, q)
	if reason != "" {
		c.fallback("bbox", reason)
		start := time.Now()
		s, err := c.misses.do(ctx, bboxKey(q), func(ctx context.Context) (shared, error) {
			items, truncated, err := c.Store.InBBox(ctx, q)
			return shared{items: items, truncated: truncated}, err
		})
		if err == nil && reason == "cold" {
			c.budget.missed(savedBBox, time.Since(start))
		}
		return s.items, s.truncated, err
	}
	c.budget.hit(savedBBox)
	c.m.answers.WithLabelValues("bbox", "cache").Inc()
	return items, truncated, nil
}

func (c *Guides) fallback(query, reason string) {
	c.m.fallbacks.WithLabelValues(query, reason).Inc()
	c.m.answers.WithLabelValues(query, "db").Inc()
}

// nearbyFromTiles is the ring search, or why the store must answer.
func (c *Guides) nearbyFromTiles(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, string) {
	switch {
	case !c.synced.Load():
		return nil, "not_synced"
	case !inCacheDomain(q.Lat, q.Lng):
		return nil, "edge"
	case q.Text != "":
		return nil, "search"
	}
	return c.nearby(ctx, q)
}

// bboxFromTiles is the viewport merge, or why the store must answer.
func (c *Guides) bboxFromTiles(ctx context.Context, q guides.BBoxQuery) ([]guides.Item, bool, string) {
	b := q.BBox
	switch {
	case !c.synced.Load():
		return nil, false, "not_synced"
	case !inCacheDomain(b.MinLat, b.MinLng) || !inCacheDomain(b.MaxLat, b.MaxLng):
		return nil, false, "edge"
	case q.Text != "":
		return nil, false, "search"
	}
	ids, dense, reason := c.viewportTiles(b)
	if reason != "" {
		return nil, false, reason
	}
	entries, reason := c.tiles(ctx, ids)
	if reason == "" && slices.ContainsFunc(entries, func(e *entry) bool { return e.tooLarge }) {
		reason = "too_large"
	}
	if reason != "" {
		return nil, false, reason
	}
	items, truncated := c.newestInside(entries, q)
	if dense {
		c.m.denseAnswers.WithLabelValues("bbox").Inc()
	}
	return items, truncated, ""
}
