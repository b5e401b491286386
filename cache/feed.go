package cache

import "github.com/guidepost/guidepost/guides"

// Ready reports whether the cache is answering (tests wait for it).
func (c *Guides) Ready() bool { return c.synced.Load() }

// Synced is called by the watcher with every tile, on (re)connect.
func (c *Guides) Synced(all map[int64]guides.TileState) {
	c.feedMu.Lock()
	for _, tile := range c.vers.replace(all) {
		c.l1.Invalidate(tile)
	}
	c.stamps.replace(all)
	c.feedMu.Unlock()
	c.synced.Store(true)
	c.m.synced.Set(1)
	c.log.Info("guides cache: following tile versions", "tiles", len(all))
}

// Changed raises a tile's version and drops its entry.
func (c *Guides) Changed(tile int64, s guides.TileState) {
	c.feedMu.Lock()
	defer c.feedMu.Unlock()
	old := c.vers.state(tile)
	if c.vers.raise(tile, s) {
		c.l1.Invalidate(tile)
		c.dropParts(tile, c.division(old.Guides))
		c.stamps.version(tile, s.Version)
		c.m.invalidations.Inc()
	}
}

// Lost stops the cache from answering until the watcher syncs again: a
// write it did not hear of could otherwise be missed.
func (c *Guides) Lost(err error) {
	if c.synced.Swap(false) {
		c.m.synced.Set(0)
		c.log.Warn("guides cache: lost the tile version feed; answering from the database", "err", err)
	}
}
