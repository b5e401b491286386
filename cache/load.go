package cache

import (
	"context"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// tiles returns the current entries for ids from memory. A tile that is
// missing, or older than its known version, is loaded in the background
// (see fill) and the search goes to the database meanwhile ("cold"): on a
// cold start a miss costs what the query costs without a cache, not the
// load of every tile it touches.
func (c *Guides) tiles(ctx context.Context, ids []int64) ([]*entry, string) {
	out, missing, reason := c.lookup(ctx, ids)
	if len(missing) > 0 {
		c.fill(fillJob{ids: missing})
		return nil, "cold"
	}
	return out, reason
}

// lookup returns the current entries for ids that memory holds, and the
// ids it lacks (missing, or older than the known version), loading none of
// them: the caller decides what a miss should load. Tiles that never held
// a guide need no read and are made on the spot; those served past
// RefreshAfter are reloaded in the background.
func (c *Guides) lookup(ctx context.Context, ids []int64) (out []*entry, missing []int64, reason string) {
	out = make([]*entry, 0, len(ids))
	now := time.Now().UnixNano()
	var empty, old []int64
	for _, id := range ids {
		e, ok := c.l1.GetIfPresent(id)
		switch {
		case ok && e.version >= c.version(id):
			if !e.answered.Load() {
				e.answered.Store(true)
			}
			if now-e.builtAt > int64(c.opt.RefreshAfter) {
				c.m.staleServes.Inc()
				old = append(old, id)
			}
			out = append(out, e)
		case ok:
			c.l1.Invalidate(id)
			missing = append(missing, id)
		case c.version(id) == 0:
			empty = append(empty, id)
		default:
			missing = append(missing, id)
		}
	}
	if len(old) > 0 {
		c.fill(fillJob{ids: old, refresh: true})
	}
	if len(empty) > 0 {
		got, err := c.l1.BulkGet(ctx, empty, c.loader) // no I/O: see load
		if err != nil {
			return nil, nil, "load_error"
		}
		for _, id := range empty {
			e := got[id]
			if e == nil || e.version < c.version(id) {
				return nil, nil, "stale" // a guide arrived meanwhile
			}
			out = append(out, e)
		}
	}
	return out, missing, ""
}

// fillJob is tiles to load (missing) or reload (served past RefreshAfter).
type fillJob struct {
	ids     []int64
	refresh bool
}

// fill asks the background loaders for tiles (see fillQueue).
func (c *Guides) fill(job fillJob) {
	ids := job.ids
	if !job.refresh && c.secondMiss() {
		ids = c.door.admit(ids)
		c.m.deferred.Add(float64(len(job.ids) - len(ids)))
	}
	if len(ids) == 0 {
		return
	}
	if n := c.queue.add(ids, job.refresh); n > 0 && !job.refresh {
		c.m.fills.Add(float64(n))
	}
}

// filler loads queued tiles into L1 (Redis first, then PostgreSQL) until
// ctx ends. FillConcurrency of them, each loading FillDuty of its time in
// batches of about FillBatchGuides guides, bound what a cold start asks of
// the database on top of the searches it answers meanwhile: a search never
// waits behind more than one small load.
func (c *Guides) filler(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.queue.ready:
		}
		for {
			ids, refresh := c.queue.take(c.opt.FillBatchGuides, c.batchWeight)
			if len(ids) == 0 {
				break
			}
			if !c.loadBatch(ctx, ids, refresh) {
				return
			}
		}
	}
}

// loadBatch loads (or reloads) ids once the budget allows and no search
// is under way, then rests; false when ctx ended. A load beside misses
// would add its time to theirs: at 1 M guides one took 140 ms of a
// saturated database.
func (c *Guides) loadBatch(ctx context.Context, ids []int64, refresh bool) bool {
	defer c.queue.done(ids)
	if !c.budget.wait(ctx) || !c.misses.waitQuiet(ctx, c.opt.FillWait) {
		return false
	}
	start := time.Now()
	var err error
	if refresh {
		// Kept and served until the new load replaces it.
		<-c.l1.BulkRefresh(ctx, ids, c.loader)
	} else {
		_, err = c.l1.BulkGet(ctx, ids, c.loader)
	}
	if err != nil && ctx.Err() == nil {
		c.log.Warn("guides cache: loading tiles failed; the database answers meanwhile", "err", err, "tiles", len(ids))
	}
	took := time.Since(start)
	c.budget.spend(took)
	return c.rest(ctx, took)
}

// batchWeight is what a tile adds to a batch: its known guides, or none
// for a tile too large for the cache (it costs no read).
func (c *Guides) batchWeight(id int64) int {
	if g := c.guidesIn(id); g <= c.opt.MaxTileGuides {
		return g
	}
	return 0
}

// rest pauses a loader after a load that took d, so that loading takes
// FillDuty of its time; false when ctx ended meanwhile.
func (c *Guides) rest(ctx context.Context, d time.Duration) bool {
	return guidepost.Sleep(ctx, time.Duration(float64(d)*(1-c.opt.FillDuty)/c.opt.FillDuty))
}

// load is otter's bulk loader: Redis first, then PostgreSQL.
func (c *Guides) load(ctx context.Context, ids []int64) (map[int64]*entry, error) {
	out := make(map[int64]*entry, len(ids))
	now := time.Now().UnixNano()
	var rest []int64
	for _, id := range ids {
		if c.version(id) == 0 {
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
	built, err := c.fromStore(ctx, rest, now)
	if err != nil {
		return nil, err
	}
	c.m.rebuildTime.Observe(time.Since(start).Seconds())
	c.m.rebuilds.Add(float64(len(built)))
	for _, e := range built {
		out[e.tile] = e
	}
	c.toRedis(built)
	return out, nil
}

// fromStore reads whole tiles and parts of dense tiles from PostgreSQL, one
// statement for each kind.
func (c *Guides) fromStore(ctx context.Context, keys []int64, now int64) ([]*entry, error) {
	var tiles []int64
	var parts []guides.SubTile
	for _, k := range keys {
		if isSubKey(k) {
			parts = append(parts, subOf(k))
		} else {
			tiles = append(tiles, k)
		}
	}
	built := make([]*entry, 0, len(keys))
	if len(tiles) > 0 {
		got, err := c.src.LoadTiles(ctx, tiles, c.opt.MaxTileGuides)
		if err != nil {
			return nil, err
		}
		for _, t := range got {
			built = append(built, newEntry(t.ID, t, now))
		}
	}
	if len(parts) > 0 {
		got, err := c.src.LoadSubTiles(ctx, parts, c.opt.MaxTileGuides)
		if err != nil {
			return nil, err
		}
		for i, t := range got {
			built = append(built, newEntry(subKey(parts[i]), t, now))
		}
	}
	return built, nil
}
