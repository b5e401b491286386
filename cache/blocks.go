package cache

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/blocks"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
)

// Blocks keeps in memory the block Set of every user who asked lately, so
// that filtering a signed-in answer costs a map lookup, not a query: for
// a user who blocks nobody, nothing at all. It decorates a blocks.Store
// and is fresh on every process the way tile versions are: PostgreSQL
// announces each committed block and unblock (user_blocks_notify), each
// process listens on a connection of its own and drops the two users'
// Sets, and otter discards a load that a drop overtook, so a Set is never
// older than the last block heard. This process's own writes drop their
// Sets before they answer. While the feed is not connected, every Set is
// read from PostgreSQL; a reconnect starts from an empty memory, since a
// block may have been missed meanwhile.
type Blocks struct {
	blocks.Store
	feed blocks.Feed
	opt  BlocksConfig
	log  *slog.Logger

	sets   atomic.Pointer[otter.Cache[string, blocks.Set]]
	synced atomic.Bool

	loads, drops prometheus.Counter
	syncedGauge  prometheus.Gauge
}

// BlocksDeps are what the block sets wrap and use.
type BlocksDeps struct {
	Store      blocks.Store
	Feed       blocks.Feed
	Registerer prometheus.Registerer
	Log        *slog.Logger
}

// BlocksConfig tunes the Sets kept; DefaultBlocksConfig has every default,
// and NewBlocks fills a zero field from it.
type BlocksConfig struct {
	Bytes  uint64        // 16 MiB of Sets
	MaxAge time.Duration // 10 min: a backstop, the feed keeps them fresh
}

// DefaultBlocksConfig is the block sets' configuration with every default.
func DefaultBlocksConfig() BlocksConfig {
	return BlocksConfig{Bytes: 16 << 20, MaxAge: 10 * time.Minute}
}

var (
	_ blocks.Store  = (*Blocks)(nil)
	_ guides.Blocks = (*Blocks)(nil)
	_ media.Blocks  = (*Blocks)(nil)
)

// NewBlocks wraps deps.Store; Run follows deps.Feed. Until the feed
// connects every Set is read from the store.
func NewBlocks(deps BlocksDeps, opt BlocksConfig) *Blocks {
	def := DefaultBlocksConfig()
	guidepost.Default(&opt.Bytes, def.Bytes)
	guidepost.Default(&opt.MaxAge, def.MaxAge)
	c := &Blocks{Store: deps.Store, feed: deps.Feed, opt: opt, log: guidepost.Logger(deps.Log),
		loads: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_block_sets_loads_total",
			Help: "Block sets read from PostgreSQL (a user's first signed-in read, or after a block or unblock)."}),
		drops: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_block_sets_invalidations_total",
			Help: "Block sets dropped because their user blocked, unblocked, or was blocked or unblocked."}),
		syncedGauge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "guidepost_block_sets_synced",
			Help: "1 while the block feed is followed (sets answered from memory), 0 while every set is read from PostgreSQL."}),
	}
	c.sets.Store(c.newSets())
	if deps.Registerer != nil {
		deps.Registerer.MustRegister(c.loads, c.drops, c.syncedGauge, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "guidepost_block_sets_kept", Help: "Block sets kept in memory.",
		}, func() float64 { return float64(c.sets.Load().EstimatedSize()) }))
	}
	return c
}

func (c *Blocks) newSets() *otter.Cache[string, blocks.Set] {
	return otter.Must(&otter.Options[string, blocks.Set]{
		MaximumWeight:    c.opt.Bytes,
		Weigher:          func(_ string, s blocks.Set) uint32 { return s.Weight() },
		ExpiryCalculator: otter.ExpiryWriting[string, blocks.Set](c.opt.MaxAge),
	})
}

// Of answers from memory while the feed is followed.
func (c *Blocks) Of(ctx context.Context, userID string) (blocks.Set, error) {
	if userID == "" {
		return blocks.Set{}, nil
	}
	if !c.synced.Load() {
		return c.load(ctx, userID)
	}
	return c.sets.Load().Get(ctx, userID, otter.LoaderFunc[string, blocks.Set](c.load))
}

// Peek is the Set of userID if it is in memory and the feed is followed;
// it never reads the database.
func (c *Blocks) Peek(userID string) (blocks.Set, bool) {
	if userID == "" {
		return blocks.Set{}, true
	}
	if !c.synced.Load() {
		return blocks.Set{}, false
	}
	return c.sets.Load().GetIfPresent(userID)
}

func (c *Blocks) load(ctx context.Context, userID string) (blocks.Set, error) {
	c.loads.Inc()
	return c.Store.Of(ctx, userID)
}

// Block drops both Sets once the block has committed, so this process's
// next answer to either user knows of it.
func (c *Blocks) Block(ctx context.Context, blockerID, blockedID, id string, at time.Time, max int) (blocks.Block, error) {
	b, err := c.Store.Block(ctx, blockerID, blockedID, id, at, max)
	c.Changed(blockerID, blockedID)
	return b, err
}

// Unblock drops both Sets, like Block.
func (c *Blocks) Unblock(ctx context.Context, blockerID, blockedID string) error {
	err := c.Store.Unblock(ctx, blockerID, blockedID)
	c.Changed(blockerID, blockedID)
	return err
}

// Synced starts from an empty memory: what was kept may predate a block
// the feed missed while it was down.
func (c *Blocks) Synced() {
	c.sets.Store(c.newSets())
	c.synced.Store(true)
	c.syncedGauge.Set(1)
}

// Changed drops the Sets of both users of a block.
func (c *Blocks) Changed(blockerID, blockedID string) {
	sets := c.sets.Load()
	sets.Invalidate(blockerID)
	sets.Invalidate(blockedID)
	c.drops.Inc()
}

// Lost reads every Set from the database until the feed is back.
func (c *Blocks) Lost(err error) {
	if c.synced.Swap(false) {
		c.syncedGauge.Set(0)
		c.log.Warn("block sets: lost the block feed; reading sets from the database", "err", err)
	}
}

// Ready reports whether Sets are answered from memory (tests wait for it).
func (c *Blocks) Ready() bool { return c.synced.Load() }

// Run follows the feed until ctx ends, and returns once it has stopped.
func (c *Blocks) Run(ctx context.Context) error {
	err := c.feed.WatchBlocks(ctx, c)
	c.synced.Store(false)
	c.syncedGauge.Set(0)
	return err
}
