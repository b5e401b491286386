package cache

import (
	"context"
	"time"
)

// tiles returns the current entries for ids, loading what is missing in one
// batch; an entry older than its tile's known version is reloaded.
func (c *Guides) tiles(ctx context.Context, ids []int64) ([]*entry, string) {
	out := make([]*entry, 0, len(ids))
	if len(ids) == 0 {
		return out, ""
	}
	now := time.Now().UnixNano()
	for attempt := 0; attempt < 3; attempt++ {
		got, err := c.l1.BulkGet(ctx, ids, c.loader)
		if err != nil {
			return nil, "load_error"
		}
		var stale []int64
		for _, id := range ids {
			e := got[id]
			switch {
			case e == nil:
				return nil, "load_error"
			case e.version < c.vers.get(id):
				c.l1.Invalidate(id)
				stale = append(stale, id)
			default:
				if now-e.builtAt > int64(c.opt.RefreshAfter) {
					c.m.staleServes.Inc()
				}
				out = append(out, e)
			}
		}
		if len(stale) == 0 {
			return out, ""
		}
		ids = stale
	}
	return nil, "stale"
}

// load is otter's bulk loader: Redis first, then PostgreSQL.
func (c *Guides) load(ctx context.Context, ids []int64) (map[int64]*entry, error) {
	out := make(map[int64]*entry, len(ids))
	now := time.Now().UnixNano()
	var rest []int64
	for _, id := range ids {
		if c.vers.get(id) == 0 {
			// No guide was ever in this tile: nothing to read. A guide
			// created meanwhile raises the version and this entry is
			// discarded or invalidated.
			out[id] = &entry{tile: id, builtAt: now, weight: 96}
			continue
		}
		rest = append(rest, id)
	}
	rest = c.fromRedis(ctx, rest, out, now)
	if len(rest) == 0 {
		return out, nil
	}
	start := time.Now()
	tiles, err := c.src.LoadTiles(ctx, rest, c.opt.MaxTileGuides)
	if err != nil {
		return nil, err
	}
	c.m.rebuildTime.Observe(time.Since(start).Seconds())
	c.m.rebuilds.Add(float64(len(tiles)))
	built := make([]*entry, 0, len(tiles))
	for _, t := range tiles {
		e := newEntry(t, now)
		out[t.ID] = e
		built = append(built, e)
	}
	c.toRedis(built)
	return out, nil
}
