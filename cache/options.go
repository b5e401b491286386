package cache

import (
	"github.com/guidepost/guidepost"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Options tune the cache; zero values take the defaults.
type Options struct {
	Redis         redis.UniversalClient // nil: no shared tier
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
	// FillDuty (0.25) is the share of its time a loader spends loading:
	// after a load that took d it rests d·(1−FillDuty)/FillDuty. A load
	// takes PostgreSQL time the searches answered meanwhile need; on 2
	// shared cores with 1 M guides, a cold start's p95 was 1.6× the
	// cache-off run's loading without rest (median of 12 pairs), 1.4×
	// resting 3× (median of 14; see BENCHMARKS.md). A miss costs what the
	// cache-off query costs, so a slower warm-up costs no more than no
	// cache.
	FillDuty float64
	// FillBatchGuides (500) bounds the guides of one background load, so
	// that no load holds a core for long: one of thousands took 100–250 ms
	// and set the cold start's p95 (see BENCHMARKS.md).
	FillBatchGuides int
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
	guidepost.Default(&o.MaxTileGuides, 4000)
	guidepost.Default(&o.MaxRings, 6)
	guidepost.Default(&o.MaxBBoxTiles, 400)
	guidepost.Default(&o.MaxScan, 20_000)
	guidepost.Default(&o.MaxBBoxGuides, 50_000)
	guidepost.Default(&o.FillConcurrency, 1)
	guidepost.Default(&o.FillDuty, 0.25)
	guidepost.Default(&o.FillBatchGuides, 500)
	o.FillDuty = min(o.FillDuty, 1)
	if o.L1Bytes == 0 {
		o.L1Bytes = 256 << 20
	}
	if o.TileBytes == 0 {
		o.TileBytes = 64 << 20
	}
	if o.ClusterBytes == 0 {
		o.ClusterBytes = 32 << 20
	}
	guidepost.Default(&o.WideClusterings, 1)
	guidepost.Default(&o.WideClusterTiles, 250_000)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}
