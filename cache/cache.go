// Package cache answers nearby and viewport searches from memory, exactly
// as PostgreSQL would, and fresh within a second of any write on any API
// process. It decorates a guides.Store: the service never knows it exists.
//
// # Design
//
// The world is cut into 0.01° tiles (guides.TileOf; the SQL function
// guide_tile numbers them identically). A cache entry is one whole tile:
// every guide located in it, with what a list item shows. A tile entry
// does not depend on any query, so one entry serves every point, radius,
// limit, cursor and tag.
//
// Superset, then filter. A nearby search visits tiles in rings around the
// query's tile, computes the exact distance from the real point to every
// guide in them (guides.Point, the same function the database path uses),
// and keeps the best Limit by (distance, id). It stops when no unvisited
// tile can hold a guide closer than the current Limit-th (a proven lower
// bound per ring), or beyond the radius. Nothing is rounded: the answer is
// the database's answer, bit for bit. A viewport reads the tiles it
// covers, filters by the exact rectangle and merges newest first.
//
// Versions. Every tile has a version in PostgreSQL (table guide_tiles),
// bumped by a statement trigger in the same transaction as any write that
// creates, moves, edits or deletes a guide in it, and announced with
// NOTIFY, which PostgreSQL delivers only after the commit. Each process
// listens on its own connection: on connect it reads every version, then
// applies notifications. An entry is used only if its version is at least
// the tile's known version; a notification invalidates the entry at once.
// Entries are read together with their version in one snapshot, and otter
// discards a load that an invalidation overtook, so an entry can never be
// older than its version. While the listener is disconnected the cache
// answers nothing and every query goes to the database.
//
// Tiers and refresh. L1 is otter, in process, weighted by bytes. On a miss
// it asks L2, Redis, for the tile at its current version (key names the
// version, so Redis can never return an older one), then PostgreSQL.
// Loads are batched per ring and deduplicated per tile across goroutines.
// Redis calls time out after RedisTimeout and a failure makes the cache
// skip Redis for RedisBackoff: Redis being down slows loads, never fails
// them.
//
// Likes and covers. A photo that becomes ready changes the cover a list
// shows: a trigger on media touches the guides it opens, which bumps their
// tiles like any edit. Like counts change without a bump (a bump per like
// would queue a hot guide's likes on one row again): every LikePoll each
// process reads the counts of the guides liked since its last read (an
// index on the counter shards' updated_at) into an overlay that answers
// prefer to the tile's older count. Lists lag likes by about LikePoll.
// Tiles are still refreshed in the background after RefreshAfter and
// dropped at MaxAge, as a backstop only.
//
// Fallbacks to the database: not synced, a tile with more than
// MaxTileGuides guides, a search that would read more than MaxScan guides
// or MaxRings rings (a rare tag in a city, a deep page), a viewport over
// MaxBBoxTiles tiles or MaxBBoxGuides guides, near the poles or the
// antimeridian, or any load error. The guide counts per tile come with the
// versions, so these are decided before loading anything.
package cache

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost/guides"
)

// Options tune the cache; zero values take the defaults.
type Options struct {
	Redis         *redis.Client // nil: no shared tier
	Registerer    prometheus.Registerer
	Log           *slog.Logger
	RefreshAfter  time.Duration // 30 s: a tile this old is reloaded in the background (a backstop)
	MaxAge        time.Duration // 2 min: never serve a tile older (a backstop)
	LikePoll      time.Duration // 1 s: how often like counts of recently liked guides are read
	RedisTimeout  time.Duration // 200 ms
	RedisBackoff  time.Duration // 1 s
	MaxTileGuides int           // 4,000
	MaxRings      int           // 6 (13×13 tiles)
	MaxScan       int           // 20,000 guides a nearby search may read
	MaxBBoxTiles  int           // 400
	MaxBBoxGuides int           // 50,000 guides a viewport may read
	L1Bytes       uint64        // 256 MiB
}

func (o Options) withDefaults() Options {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.RefreshAfter, 30*time.Second)
	def(&o.MaxAge, 2*time.Minute)
	def(&o.LikePoll, time.Second)
	def(&o.RedisTimeout, 200*time.Millisecond)
	def(&o.RedisBackoff, time.Second)
	if o.MaxAge < o.RefreshAfter {
		o.MaxAge = o.RefreshAfter
	}
	if o.MaxTileGuides <= 0 {
		o.MaxTileGuides = 4000
	}
	if o.MaxRings <= 0 {
		o.MaxRings = 6
	}
	if o.MaxBBoxTiles <= 0 {
		o.MaxBBoxTiles = 400
	}
	if o.MaxScan <= 0 {
		o.MaxScan = 20_000
	}
	if o.MaxBBoxGuides <= 0 {
		o.MaxBBoxGuides = 50_000
	}
	if o.L1Bytes == 0 {
		o.L1Bytes = 256 << 20
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Guides is the caching decorator. Writes, single guides, likes and
// clusters pass through to the store it wraps.
type Guides struct {
	guides.Store
	src guides.TileSource
	opt Options
	m   *metrics

	l1     *otter.Cache[int64, *entry]
	loader otter.BulkLoader[int64, *entry]
	vers   versions
	synced atomic.Bool

	likes   *likeOverlay
	likesAt atomic.Int64 // when the overlay was last read (unix nanos)

	prefix    atomic.Pointer[string] // Redis key prefix, once the namespace is known
	redisDown atomic.Int64           // unix nanos until which Redis is skipped
	writes    chan []*entry          // entries waiting to be copied to Redis
}

// entry is one tile as cached.
type entry struct {
	tile     int64
	version  int64
	builtAt  int64 // unix nanos
	count    int
	tooLarge bool
	items    []cachedItem // newest first
	weight   uint32
}

type cachedItem struct {
	guides.Item
	pt      guides.Point
	builtAt int64 // the tile's, for the like overlay
}

func newCachedItem(it guides.Item, builtAt int64) cachedItem {
	return cachedItem{Item: it, pt: guides.PointAt(it.Lat, it.Lng), builtAt: builtAt}
}

// item is what an answer shows of it: the cached item with the newest
// like count known.
func (c *Guides) item(it *cachedItem) guides.Item {
	out := it.Item
	out.Tags = slices.Clone(it.Tags)
	if n, ok := c.likes.count(it.ID, it.builtAt); ok {
		out.LikeCount = n
	}
	return out
}

func newEntry(t guides.Tile, builtAt int64) *entry {
	e := &entry{tile: t.ID, version: t.Version, builtAt: builtAt, count: t.Count, tooLarge: t.TooLarge}
	e.items = make([]cachedItem, len(t.Items))
	for i, it := range t.Items {
		e.items[i] = newCachedItem(it, builtAt)
	}
	e.weigh()
	return e
}

func (e *entry) age() time.Duration { return time.Duration(time.Now().UnixNano() - e.builtAt) }

func (e *entry) weigh() {
	w := 96
	for i := range e.items {
		it := &e.items[i]
		w += 240 + len(it.Title) + len(it.Cover.ThumbHash)
		for _, t := range it.Tags {
			w += 16 + len(t)
		}
	}
	e.weight = uint32(min(w, math.MaxUint32))
}

// New wraps store. Call Run to start following versions; until it has
// synced, every query goes to store.
func New(store guides.Store, src guides.TileSource, opt Options) *Guides {
	opt = opt.withDefaults()
	c := &Guides{Store: store, src: src, opt: opt, m: newMetrics(opt.Registerer), writes: make(chan []*entry, 64),
		likes: newLikeOverlay()}
	c.l1 = otter.Must(&otter.Options[int64, *entry]{
		MaximumWeight: opt.L1Bytes,
		Weigher:       func(_ int64, e *entry) uint32 { return e.weight },
		// Ages count from when PostgreSQL was read, not from when this
		// process got the entry (it may come from Redis, already aged).
		ExpiryCalculator: otter.ExpiryWritingFunc(func(e otter.Entry[int64, *entry]) time.Duration {
			return max(opt.MaxAge-e.Value.age(), time.Millisecond)
		}),
		RefreshCalculator: otter.RefreshWritingFunc(func(e otter.Entry[int64, *entry]) time.Duration {
			return max(opt.RefreshAfter-e.Value.age(), time.Millisecond)
		}),
		StatsRecorder: l1Stats{c.m},
		Logger:        otterLogger{opt.Log},
	})
	c.loader = otter.BulkLoaderFunc[int64, *entry](c.load)
	if opt.Registerer != nil {
		opt.Registerer.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "guidepost_guides_cache_like_poll_age_seconds",
			Help: "Seconds since like counts were last read; lists lag likes by about this much.",
		}, func() float64 {
			if at := c.likesAt.Load(); at > 0 {
				return time.Since(time.Unix(0, at)).Seconds()
			}
			return 0
		}))
	}
	src.OnTileWrite(c.Changed)
	return c
}

// Run follows tile versions and copies loaded tiles to Redis until ctx
// ends.
func (c *Guides) Run(ctx context.Context) error {
	if c.opt.Redis != nil {
		go c.redisWriter(ctx)
		go c.namespace(ctx)
	}
	polled := make(chan struct{})
	go func() { c.pollLikes(ctx); close(polled) }()
	defer func() { <-polled }()
	err := c.src.WatchTiles(ctx, c)
	c.synced.Store(false)
	c.m.synced.Set(0)
	return err
}

// Ready reports whether the cache is answering (tests wait for it).
func (c *Guides) Ready() bool { return c.synced.Load() }

// Synced is called by the watcher with every tile, on (re)connect.
func (c *Guides) Synced(all map[int64]guides.TileState) {
	for _, tile := range c.vers.replace(all) {
		c.l1.Invalidate(tile)
	}
	c.synced.Store(true)
	c.m.synced.Set(1)
	c.opt.Log.Info("guides cache: following tile versions", "tiles", len(all))
}

// Changed raises a tile's version and drops its entry.
func (c *Guides) Changed(tile int64, s guides.TileState) {
	if c.vers.raise(tile, s) {
		c.l1.Invalidate(tile)
		c.m.invalidations.Inc()
	}
}

// Lost stops the cache from answering until the watcher syncs again: a
// write it did not hear of could otherwise be missed.
func (c *Guides) Lost(err error) {
	if c.synced.Swap(false) {
		c.m.synced.Set(0)
		c.opt.Log.Warn("guides cache: lost the tile version feed; answering from the database", "err", err)
	}
}

func (c *Guides) fallback(query, reason string) {
	c.m.fallbacks.WithLabelValues(query, reason).Inc()
	c.m.answers.WithLabelValues(query, "db").Inc()
}

// Nearby answers from tiles, or from the store when it cannot.
func (c *Guides) Nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	if !c.synced.Load() {
		c.fallback("nearby", "not_synced")
		return c.Store.Nearby(ctx, q)
	}
	if !inCacheDomain(q.Lat, q.Lng) {
		c.fallback("nearby", "edge")
		return c.Store.Nearby(ctx, q)
	}
	items, reason := c.nearby(ctx, q)
	if reason != "" {
		c.fallback("nearby", reason)
		return c.Store.Nearby(ctx, q)
	}
	c.m.answers.WithLabelValues("nearby", "cache").Inc()
	return items, nil
}

func (c *Guides) nearby(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, string) {
	here := guides.PointAt(q.Lat, q.Lng)
	row, col := guides.TileRow(q.Lat), guides.TileCol(q.Lng)
	best := topK{k: q.Limit}
	var ids []int64
	scanned := 0
	for n := int64(0); n <= int64(c.opt.MaxRings); n++ {
		bound := q.RadiusM
		if best.full() {
			bound = min(bound, best.worst())
		}
		ids = ids[:0]
		for _, t := range ring(row, col, n, nil) {
			r, cl := guides.TileRowCol(t)
			if tileLowerBound(here, r, cl) <= bound {
				// Decide from the known counts before loading anything: a
				// search that would read too much (a rare tag in a city, a
				// deep page) is the database's job.
				g := c.vers.state(t).Guides
				if g > c.opt.MaxTileGuides {
					return nil, "too_large"
				}
				if scanned += g; scanned > c.opt.MaxScan {
					return nil, "too_many_guides"
				}
				ids = append(ids, t)
			}
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

// scan offers every guide of e that matches q to best.
func (c *Guides) scan(e *entry, here guides.Point, q guides.NearbyQuery, best *topK) {
	for i := range e.items {
		it := &e.items[i]
		limit := q.RadiusM
		if best.full() {
			limit = min(limit, best.worst())
		}
		// A meridian arc is never longer than the distance: a cheap test
		// that skips most of a dense tile before any trigonometry.
		if math.Abs(it.Lat-q.Lat)*metresPerDegree > limit+boundMargin {
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

// BBox: the newest guides inside the viewport, from the tiles it covers.
func (c *Guides) InBBox(ctx context.Context, q guides.BBoxQuery) ([]guides.Item, bool, error) {
	if !c.synced.Load() {
		c.fallback("bbox", "not_synced")
		return c.Store.InBBox(ctx, q)
	}
	b := q.BBox
	if !inCacheDomain(b.MinLat, b.MinLng) || !inCacheDomain(b.MaxLat, b.MaxLng) {
		c.fallback("bbox", "edge")
		return c.Store.InBBox(ctx, q)
	}
	r0, r1 := guides.TileRow(b.MinLat), guides.TileRow(b.MaxLat)
	c0, c1 := guides.TileCol(b.MinLng), guides.TileCol(b.MaxLng)
	if (r1-r0+1)*(c1-c0+1) > int64(c.opt.MaxBBoxTiles) {
		c.fallback("bbox", "too_many_tiles")
		return c.Store.InBBox(ctx, q)
	}
	ids := make([]int64, 0, (r1-r0+1)*(c1-c0+1))
	total := 0
	for r := r0; r <= r1; r++ {
		for cl := c0; cl <= c1; cl++ {
			t := guides.TileID(r, cl)
			total += c.vers.state(t).Guides
			ids = append(ids, t)
		}
	}
	if total > c.opt.MaxBBoxGuides {
		c.fallback("bbox", "too_many_guides")
		return c.Store.InBBox(ctx, q)
	}
	entries, reason := c.tiles(ctx, ids)
	for _, e := range entries {
		if e.tooLarge {
			reason = "too_large"
		}
	}
	if reason != "" {
		c.fallback("bbox", reason)
		return c.Store.InBBox(ctx, q)
	}
	items, truncated := c.newestInside(entries, q)
	c.m.answers.WithLabelValues("bbox", "cache").Inc()
	return items, truncated, nil
}

// newestInside merges the tiles' lists (each newest first) and keeps the
// first Limit guides inside the rectangle with the tag.
func (c *Guides) newestInside(entries []*entry, q guides.BBoxQuery) ([]guides.Item, bool) {
	match := func(it *cachedItem) bool {
		return q.BBox.Contains(it.Lat, it.Lng) && (q.Tag == "" || slices.Contains(it.Tags, q.Tag))
	}
	// h is a max-heap of cursors into the lists, by the id they point at.
	type cursor struct {
		e   *entry
		pos int
	}
	var h []cursor
	advance := func(c cursor) (cursor, bool) {
		for c.pos < len(c.e.items) && !match(&c.e.items[c.pos]) {
			c.pos++
		}
		return c, c.pos < len(c.e.items)
	}
	id := func(c cursor) string { return c.e.items[c.pos].ID }
	down := func(i int) {
		for {
			l, r, m := 2*i+1, 2*i+2, i
			if l < len(h) && id(h[l]) > id(h[m]) {
				m = l
			}
			if r < len(h) && id(h[r]) > id(h[m]) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for _, e := range entries {
		if c, ok := advance(cursor{e: e}); ok {
			h = append(h, c)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	out := make([]guides.Item, 0, min(q.Limit, 64))
	for len(h) > 0 {
		if len(out) == q.Limit {
			return out, true
		}
		top := h[0]
		out = append(out, c.item(&top.e.items[top.pos]))
		top.pos++
		if next, ok := advance(top); ok {
			h[0] = next
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return out, false
}

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

// keyPrefix names this database's tiles in Redis, when known.
func (c *Guides) key(tile, version int64) string {
	p := c.prefix.Load()
	if p == nil {
		return ""
	}
	return *p + strconv.FormatInt(tile, 10) + ":" + strconv.FormatInt(version, 10)
}

func (c *Guides) namespace(ctx context.Context) {
	for {
		ns, err := c.src.Namespace(ctx)
		if err == nil {
			p := "guidepost:guides:tile:" + ns + ":"
			c.prefix.Store(&p)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (c *Guides) redisUsable() bool {
	return c.opt.Redis != nil && c.prefix.Load() != nil && time.Now().UnixNano() >= c.redisDown.Load()
}

func (c *Guides) redisFailed(err error) {
	c.m.redisErrors.Inc()
	c.redisDown.Store(time.Now().Add(c.opt.RedisBackoff).UnixNano())
	c.opt.Log.Warn("guides cache: redis failed; skipping it for a while", "err", err, "for", c.opt.RedisBackoff)
}

var errRedisTimeout = errors.New("redis did not answer in time")

// redisCall runs fn with the Redis timeout and returns when the timeout
// does, whether or not fn has: go-redis does not always honour a context
// deadline (a connection's handshake waits for its own read timeout), and
// a request must never wait on a sick Redis longer than RedisTimeout.
func (c *Guides) redisCall(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.opt.RedisTimeout)
	done := make(chan error, 1)
	go func() {
		defer cancel()
		done <- fn(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			return errRedisTimeout
		}
		return ctx.Err()
	}
}

// fromRedis fills out with tiles Redis has at their current version and no
// older than RefreshAfter; it returns the ids still missing.
func (c *Guides) fromRedis(ctx context.Context, ids []int64, out map[int64]*entry, now int64) []int64 {
	if len(ids) == 0 || !c.redisUsable() {
		return ids
	}
	keys := make([]string, len(ids))
	want := make([]int64, len(ids))
	for i, id := range ids {
		want[i] = c.vers.get(id)
		keys[i] = c.key(id, want[i])
	}
	var vals []any
	err := c.redisCall(ctx, func(ctx context.Context) (err error) {
		vals, err = c.opt.Redis.MGet(ctx, keys...).Result()
		return err
	})
	if err != nil {
		c.m.lookups.WithLabelValues("l2", "error").Add(float64(len(ids)))
		c.redisFailed(err)
		return ids
	}
	var rest []int64
	for i, v := range vals {
		s, ok := v.(string)
		if ok {
			e, err := decodeEntry(ids[i], []byte(s))
			if err == nil && e.version == want[i] && now-e.builtAt < int64(c.opt.RefreshAfter) {
				e.weigh()
				out[ids[i]] = e
				c.m.lookups.WithLabelValues("l2", "hit").Inc()
				continue
			}
		}
		c.m.lookups.WithLabelValues("l2", "miss").Inc()
		rest = append(rest, ids[i])
	}
	return rest
}

// toRedis hands freshly built tiles to the writer; when it is behind, they
// are simply not shared.
func (c *Guides) toRedis(es []*entry) {
	if len(es) == 0 || !c.redisUsable() {
		return
	}
	select {
	case c.writes <- es:
	default:
	}
}

func (c *Guides) redisWriter(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case es := <-c.writes:
			if !c.redisUsable() {
				continue
			}
			err := c.redisCall(ctx, func(ctx context.Context) error {
				_, err := c.opt.Redis.Pipelined(ctx, func(p redis.Pipeliner) error {
					for _, e := range es {
						if k := c.key(e.tile, e.version); k != "" && e.version > 0 {
							p.Set(ctx, k, encodeEntry(e), c.opt.MaxAge)
						}
					}
					return nil
				})
				return err
			})
			if err != nil && ctx.Err() == nil {
				c.redisFailed(err)
			}
		}
	}
}

// otterLogger sends otter's swallowed refresh errors to slog.
type otterLogger struct{ log *slog.Logger }

func (l otterLogger) Warn(ctx context.Context, msg string, err error) {
	l.log.WarnContext(ctx, "guides cache: "+msg, "err", err)
}

func (l otterLogger) Error(ctx context.Context, msg string, err error) {
	l.log.ErrorContext(ctx, "guides cache: "+msg, "err", err)
}
