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
// Tiers and refresh. L1 is otter, in process, weighted by bytes. A search
// that misses a tile in L1 is answered by PostgreSQL, exactly as with the
// cache off, while the tile is loaded in the background by FillConcurrency
// loaders, each resting between loads (FillDuty), starting one only when
// no search is under way (or after FillWait) and only while answers from
// memory have saved the database what loads took, beyond FillAllowance of
// the time (budget.go), and identical misses share one query: a cold cache
// is never slower than no cache. A loader
// asks L2, Redis, for the tile at its current version (key names the version, so
// Redis can never return an older one), then PostgreSQL. Loads are batched
// and deduplicated per tile. What a miss loads is bounded twice: a tile
// may wait for its second miss (FillOnMiss, doorkeeper.go), and a nearby miss
// loads only the tiles its answer reaches (the database's page tells how
// far), not every tile of its radius; a search reading a batch that
// reaches further skips the tiles it lacks once the ones it holds rule
// them out.
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
// prefer to the tile's older count. Lists lag likes by about LikePoll,
// except a viewer's own: the guides service overlays, per request, what
// the viewer likes and the page's exact counts (Store.ViewerStates), since
// tiles are shared by every viewer.
// Tiles are still refreshed in the background after RefreshAfter and
// dropped at MaxAge, as a backstop only.
//
// Dense tiles. A tile with more than MaxTileGuides guides is cached as
// equal parts instead (subtiles.go), each an entry with the tile's version;
// a nearby search reads them nearest first, batch by batch, dropping the
// parts its best so far rules out, and a viewport the parts it meets.
//
// Fallbacks to the database: not synced, a part of a dense tile with more
// than MaxTileGuides guides (they crowd into a few metres), a search that would read more than MaxScan guides
// or MaxRings rings (a rare tag in a city, a deep page), a viewport over
// MaxBBoxTiles tiles or MaxBBoxGuides guides, near the poles or the
// antimeridian, a text search (tiles hold no bodies; the full-text index
// answers it), or any load error. The guide counts per tile come with the
// versions, so these are decided before loading anything.
package cache

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// Guides is the caching decorator. Writes, single guides and likes pass
// through to the store it wraps; clusterings and vector tiles are kept
// while their area's stamp holds (areaMemo).
type Guides struct {
	guides.Store
	src   guides.TileSource
	opt   Config
	redis redis.UniversalClient // nil: no shared tier
	log   *slog.Logger
	m     *metrics

	wide chan struct{} // Config.WideClusterings slots

	l1     *otter.Cache[int64, *entry]
	loader otter.BulkLoader[int64, *entry]
	vers   versions
	synced atomic.Bool
	// feedMu makes a sync and a change each move versions and stamps
	// together: a sync's snapshot must not put back a stamp that a write
	// committed meanwhile had raised (its ETag would then never change).
	feedMu sync.Mutex

	likes    *likeOverlay
	likesAt  atomic.Int64 // when the overlay was last read (unix nanos)
	stamps   *areaStamps  // versions and like counts per area, for ETags
	vtiles   *areaMemo[guides.VectorTileQuery, []byte]
	clusters *areaMemo[guides.ClusterQuery, []guides.Cluster]

	prefix    atomic.Pointer[string] // Redis key prefix, once the namespace is known
	redisDown atomic.Int64           // unix nanos until which Redis is skipped
	writes    chan []*entry          // entries waiting to be copied to Redis

	queue  *fillQueue   // tiles to load in the background
	door   *doorkeeper  // tiles missed once, not yet worth a load
	fullAt atomic.Int64 // unix nanos of L1's last eviction for room
	misses *misses      // searches the store answers now
	budget *loadBudget  // what loads may spend: what answers saved

	run   runner
	calls calls
}

var (
	_ guides.Store       = (*Guides)(nil)
	_ guides.TileWatcher = (*Guides)(nil)
	_ guides.Stamps      = (*Guides)(nil)
)

// New wraps deps.Store. Call Start (or Run) to follow versions; until the
// cache has synced, every query goes to the store.
func New(deps Deps, opt Config) *Guides {
	opt = opt.withDefaults()
	src := deps.Source
	c := &Guides{Store: deps.Store, src: src, opt: opt, redis: deps.Redis, log: guidepost.Logger(deps.Log), m: newMetrics(deps.Registerer), writes: make(chan []*entry, 64),
		queue: newFillQueue(fillQueueTiles), likes: newLikeOverlay(), stamps: newAreaStamps(), misses: newMisses(), budget: newLoadBudget(opt.FillAllowance, opt.FillDuty), door: newDoorkeeper(doorkeeperKeys), wide: make(chan struct{}, opt.WideClusterings)}
	c.vtiles = newAreaMemo[guides.VectorTileQuery](opt.TileBytes, func(b []byte) uint32 { return uint32(len(b)) }, c.m.vectorTiles)
	c.clusters = newAreaMemo[guides.ClusterQuery](opt.ClusterBytes, clustersWeight, c.m.clusters)
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
		OnDeletion:    c.deleted,
		Logger:        otterLogger{c.log},
	})
	c.loader = otter.BulkLoaderFunc[int64, *entry](c.load)
	if deps.Registerer != nil {
		deps.Registerer.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "guidepost_guides_cache_l1_bytes",
			Help: "What L1's entries weigh (bounded by GUIDES_CACHE_L1_MB).",
		}, func() float64 { return float64(c.l1.WeightedSize()) }))
		deps.Registerer.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "guidepost_guides_cache_fill_queue_tiles",
			Help: "Tiles waiting for a background load or loading (at most 16,384).",
		}, func() float64 { return float64(c.queue.size()) }))
		deps.Registerer.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "guidepost_guides_cache_fill_credit_seconds",
			Help: "Database time background loads may still spend: what answers from memory saved, plus GUIDES_CACHE_FILL_ALLOWANCE of the time, less what loads took (at most 5 s; below 0 the loaders wait).",
		}, c.budget.seconds))
		deps.Registerer.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "guidepost_guides_cache_l1_full",
			Help: "1 while L1 evicts for room (a tile then loads on its second miss, GUIDES_CACHE_FILL_ON_MISS=auto).",
		}, func() float64 {
			if c.full(time.Now()) {
				return 1
			}
			return 0
		}))
		deps.Registerer.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
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
