package cache

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// Deps are what the cache decorates and uses.
type Deps struct {
	Store      guides.Store          // what the cache answers from on a miss
	Source     guides.TileSource     // the tile versions it follows
	Redis      redis.UniversalClient // nil: no shared tier
	Registerer prometheus.Registerer
	Log        *slog.Logger
}

// Config tunes the cache; DefaultConfig has every default, and New fills
// a zero field from it.
type Config struct {
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
	TileBytes     uint64        // 64 MiB of encoded vector tiles
	ClusterBytes  uint64        // 32 MiB of clusterings (a whole-world map at zoom 5 is ~2 MB)
	// WideClusterings (1) is how many clusterings of a wide area (more
	// than WideClusterTiles tiles: a country, the world) this process
	// counts in PostgreSQL at once. Each reads every tile row in its box
	// (0.3–0.5 s at 200k guides) and a panned map misses the memo, so 32
	// at once took both cores from every other query (the load suite's
	// world-clusters door); the rest wait in turn, within their deadline.
	WideClusterings  int
	WideClusterTiles int64 // 250,000 (5° × 5°)
	// FillConcurrency (1) is how many batches of missing tiles load at
	// once in the background; one kept a cold start's p95 closest to the
	// cache-off run's on 2 cores (see BENCHMARKS.md).
	FillConcurrency int
	// FillDuty (0.1) is the share of its time a loader spends loading:
	// after a load that took d it rests d·(1−FillDuty)/FillDuty. A load
	// takes PostgreSQL time the searches answered meanwhile need, and under
	// random map reads the loader is never idle: its duty is what loads
	// cost the database, whatever they buy. Warm, on 2 shared cores, 0.25
	// put nearby p95 at 5.7–8.1 ms (1 M guides) and 7.8–10.5 ms (10 M);
	// 0.1 at 4.1 and 4.6 ms, with nine in ten of 0.25's cache answers at
	// 1 M (see BENCHMARKS.md). After a restart the duties came within the
	// noise of each other (0.1 and 0.25: medians 1.20 and 1.22 of the
	// cache-off p95 over six pairs; 0.05 and 0.5 likewise); 1 was slower.
	FillDuty float64
	// FillAllowance (0.01) is the share of its time a loader may load
	// beyond what the cache's answers saved the database: a hit banks what
	// a cold miss of its kind costs, a load spends what it took (budget.go).
	// At or above FillDuty it lifts the bound.
	FillAllowance float64
	// FillBatchGuides (500) bounds the guides of one background load, so
	// that no load holds a core for long: one of thousands took 100–250 ms
	// and set the cold start's p95 (see BENCHMARKS.md).
	FillBatchGuides int
	// FillWait (1 s) bounds how long a loader waits for a moment when no
	// miss is waiting on the database: under a load that never pauses the
	// cache still fills, a batch at least every FillWait.
	FillWait time.Duration
	// FillOnMiss is the miss of a tile that loads it: 1 its first, 2 its
	// second within the doorkeeper's memory, so that a tile one search
	// touched costs no load (see doorkeeper). FillOnMissAuto (0, the
	// default) is 1 while L1 has room and 2 once it is full (an entry left
	// it for room within fullFor): a full L1 admits a new entry only over a
	// more frequent one (TinyLFU), so a tile missed once mostly loads for
	// nothing there (at 1 M guides, 19 of 20 loads left without answering),
	// while an empty one after a restart keeps what it loads. 2 alone
	// halved the loads from PostgreSQL warm but put the p95 after a restart
	// at 1 M 0.08 further above the cache-off run's (fewer early hits); 1
	// alone loads, once L1 is full, tiles that are evicted unread.
	FillOnMiss int
}

// FillOnMissAuto is the FillOnMiss that follows whether L1 is full.
const FillOnMissAuto = 0

// DefaultConfig is the cache's configuration with every default: the
// numbers config.Parse starts from.
func DefaultConfig() Config {
	return Config{
		RefreshAfter:     30 * time.Second,
		MaxAge:           2 * time.Minute,
		LikePoll:         time.Second,
		RedisTimeout:     200 * time.Millisecond,
		RedisBackoff:     time.Second,
		MaxTileGuides:    4000,
		MaxRings:         6,
		MaxScan:          20_000,
		MaxBBoxTiles:     400,
		MaxBBoxGuides:    50_000,
		L1Bytes:          256 << 20,
		TileBytes:        64 << 20,
		ClusterBytes:     32 << 20,
		WideClusterings:  1,
		WideClusterTiles: 250_000,
		FillConcurrency:  1,
		FillDuty:         0.1,
		FillAllowance:    0.01,
		FillBatchGuides:  500,
		FillWait:         time.Second,
		FillOnMiss:       FillOnMissAuto,
	}
}

func (o Config) withDefaults() Config {
	def := DefaultConfig()
	guidepost.Default(&o.RefreshAfter, def.RefreshAfter)
	guidepost.Default(&o.MaxAge, def.MaxAge)
	guidepost.Default(&o.LikePoll, def.LikePoll)
	guidepost.Default(&o.RedisTimeout, def.RedisTimeout)
	guidepost.Default(&o.RedisBackoff, def.RedisBackoff)
	if o.MaxAge < o.RefreshAfter {
		o.MaxAge = o.RefreshAfter
	}
	guidepost.Default(&o.MaxTileGuides, def.MaxTileGuides)
	guidepost.Default(&o.MaxRings, def.MaxRings)
	guidepost.Default(&o.MaxBBoxTiles, def.MaxBBoxTiles)
	guidepost.Default(&o.MaxScan, def.MaxScan)
	guidepost.Default(&o.MaxBBoxGuides, def.MaxBBoxGuides)
	guidepost.Default(&o.FillConcurrency, def.FillConcurrency)
	guidepost.Default(&o.FillDuty, def.FillDuty)
	guidepost.Default(&o.FillBatchGuides, def.FillBatchGuides)
	guidepost.Default(&o.FillWait, def.FillWait)
	o.FillDuty = min(o.FillDuty, 1)
	guidepost.Default(&o.FillAllowance, def.FillAllowance)
	guidepost.Default(&o.L1Bytes, def.L1Bytes)
	guidepost.Default(&o.TileBytes, def.TileBytes)
	guidepost.Default(&o.ClusterBytes, def.ClusterBytes)
	guidepost.Default(&o.WideClusterings, def.WideClusterings)
	guidepost.Default(&o.WideClusterTiles, def.WideClusterTiles)
	return o
}
