package cache

import (
	"context"
	"hash/maphash"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guidepost/guidepost/guides"
)

// likeOverlay holds the like counts of recently liked guides, polled from
// PostgreSQL every LikePoll. Like counts are the one thing a list shows
// that changes without a tile version bump (a bump per like would put every
// like of a hot guide on one row again); instead of re-reading whole tiles
// every few seconds, each process reads only what changed. An answer takes
// a guide's count from the overlay when it was read after the guide's tile.
type likeOverlay struct {
	seed   maphash.Seed
	shards [64]overlayShard
	// newest is the latest asOf set: no count is newer, so an item from a
	// tile built after it needs no lookup (the common case between likes).
	newest atomic.Int64
}

type overlayShard struct {
	mu sync.RWMutex
	m  map[string]likeCount
}

type likeCount struct {
	n    int64
	asOf int64 // unix nanos, this process's clock, taken after the read
}

func newLikeOverlay() *likeOverlay { return &likeOverlay{seed: maphash.MakeSeed()} }

func (o *likeOverlay) shard(id string) *overlayShard {
	return &o.shards[maphash.String(o.seed, id)%uint64(len(o.shards))]
}

func (o *likeOverlay) set(counts map[string]guides.LikeCount, asOf int64) {
	defer func() {
		for cur := o.newest.Load(); cur < asOf && !o.newest.CompareAndSwap(cur, asOf); cur = o.newest.Load() {
		}
	}()
	for id, n := range counts {
		s := o.shard(id)
		s.mu.Lock()
		if s.m == nil {
			s.m = map[string]likeCount{}
		}
		s.m[id] = likeCount{n: n.N, asOf: asOf}
		s.mu.Unlock()
	}
}

// count returns the overlay's count for id unless the tile was built
// (began its read) after the count's read had ended. A tile whose read
// began while the count's was under way may have read the guide before a
// like or unlike the count saw: the count is the newer then, and the one
// the area stamps name.
func (o *likeOverlay) count(id string, builtAt int64) (int64, bool) {
	if o.newest.Load() <= builtAt {
		return 0, false
	}
	s := o.shard(id)
	s.mu.RLock()
	lc, ok := s.m[id]
	s.mu.RUnlock()
	if !ok || lc.asOf <= builtAt {
		return 0, false
	}
	return lc.n, true
}

// prune forgets counts read before t: every tile in the cache is younger.
func (o *likeOverlay) prune(t int64) (kept int) {
	for i := range o.shards {
		s := &o.shards[i]
		s.mu.Lock()
		for id, lc := range s.m {
			if lc.asOf < t {
				delete(s.m, id)
			}
		}
		kept += len(s.m)
		s.mu.Unlock()
	}
	return kept
}

// likeWindowOverlap re-reads the last few seconds on every poll: a like is
// stamped when its transaction starts and becomes visible when it commits.
const likeWindowOverlap = 5 * time.Second

// pollLikes keeps the overlay current until ctx ends.
func (c *Guides) pollLikes(ctx context.Context) {
	// At start every liked guide is read, however long ago: the area
	// stamps hold every guide's count, so that all processes agree on them.
	var since time.Time
	tick := time.NewTicker(c.opt.LikePoll)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		counts, dbNow, err := c.src.LikeCountsSince(pctx, since)
		var tiles map[string]int64
		if err == nil && len(counts) > 0 {
			tiles, err = c.src.GuideTiles(pctx, slices.Collect(maps.Keys(counts)))
		}
		cancel()
		asOf := time.Now().UnixNano()
		switch {
		case err == nil:
			c.likes.set(counts, asOf)
			c.stamps.likes(counts, tiles)
			c.likesAt.Store(asOf)
			since = dbNow.Add(-likeWindowOverlap)
		case ctx.Err() == nil:
			c.log.Warn("guides cache: polling like counts failed; lists may lag", "err", err)
		}
		// A tile lives at most MaxAge: older counts can no longer matter.
		c.m.overlay.Set(float64(c.likes.prune(asOf - int64(c.opt.MaxAge) - int64(time.Minute))))
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
