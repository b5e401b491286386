package cache

import (
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	lookups       *prometheus.CounterVec // tier, result
	rebuilds      prometheus.Counter     // tiles read from PostgreSQL
	fills         prometheus.Counter     // tiles queued for a background load
	deferred      prometheus.Counter     // missed tiles not loaded: their first miss
	evictions     *prometheus.CounterVec // answered: whether the entry served a search first
	rebuildTime   prometheus.Histogram
	staleServes   prometheus.Counter
	fallbacks     *prometheus.CounterVec // query, reason
	answers       *prometheus.CounterVec // query, source
	denseAnswers  *prometheus.CounterVec // query
	invalidations prometheus.Counter
	redisErrors   prometheus.Counter
	synced        prometheus.Gauge
	overlay       prometheus.Gauge
	vectorTiles   *prometheus.CounterVec // result
	clusters      *prometheus.CounterVec // result
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_lookups_total",
			Help: "Tile lookups by tier (l1 in-process, l2 Redis) and result (hit, miss, error).",
		}, []string{"tier", "result"}),
		rebuilds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_rebuilds_total",
			Help: "Tiles read from PostgreSQL (loads and background refreshes).",
		}),
		fills: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_fills_total",
			Help: "Tiles a search missed and queued for a background load (the search went to PostgreSQL).",
		}),
		deferred: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_fills_deferred_total",
			Help: "Missed tiles not loaded because it was their first miss (GUIDES_CACHE_FILL_ON_MISS); the next miss loads them.",
		}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_l1_evictions_total",
			Help: "Entries L1 dropped for room (or refused on arrival), by whether they answered a search first (answered=no: a load that bought nothing).",
		}, []string{"answered"}),
		rebuildTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "guidepost_guides_cache_rebuild_seconds",
			Help:    "Time to read a batch of tiles from PostgreSQL.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}),
		staleServes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_stale_serves_total",
			Help: "Tiles served past their refresh age while a background refresh runs (their guides are exact: versions guard them).",
		}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_fallbacks_total",
			Help: "Queries answered by PostgreSQL instead of the cache, by reason.",
		}, []string{"query", "reason"}),
		answers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_answers_total",
			Help: "Nearby and viewport answers by source (cache or db).",
		}, []string{"query", "source"}),
		denseAnswers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_dense_answers_total",
			Help: "Cache answers (counted in answers_total too) that read parts of tiles over MaxTileGuides.",
		}, []string{"query"}),
		invalidations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_invalidations_total",
			Help: "Tile versions raised by writes (NOTIFY from PostgreSQL or this process's own writes).",
		}),
		redisErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_redis_errors_total",
			Help: "Redis calls that failed or timed out; the cache then skips Redis for a while.",
		}),
		overlay: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "guidepost_guides_cache_like_overlay_guides",
			Help: "Guides whose recent like counts the cache holds over its tiles.",
		}),
		vectorTiles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_vector_tiles_total",
			Help: "Vector tile requests by result: hit (served from memory), miss (cut by PostgreSQL), uncached (the cache was not following versions).",
		}, []string{"result"}),
		clusters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_guides_cache_clusters_total",
			Help: "Clustering requests by result: hit (served from memory), miss (counted by PostgreSQL), uncached (the cache was not following versions).",
		}, []string{"result"}),
		synced: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "guidepost_guides_cache_synced",
			Help: "1 while the cache follows tile versions from PostgreSQL; 0 sends every query to the database.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.lookups, m.rebuilds, m.fills, m.deferred, m.evictions, m.rebuildTime, m.staleServes, m.fallbacks, m.answers, m.denseAnswers,
			m.invalidations, m.redisErrors, m.synced, m.overlay, m.vectorTiles, m.clusters)
	}
	return m
}

// evicted counts an entry L1 dropped for room; one that never answered a
// search was a load that bought nothing.
func (m *metrics) evicted(e otter.DeletionEvent[int64, *entry]) {
	if e.Cause != otter.CauseOverflow {
		return
	}
	answered := "no"
	if e.Value.answered.Load() {
		answered = "yes"
	}
	m.evictions.WithLabelValues(answered).Inc()
}

// l1Stats feeds otter's statistics into the metrics.
type l1Stats struct{ m *metrics }

func (s l1Stats) RecordHits(n int)                { s.m.lookups.WithLabelValues("l1", "hit").Add(float64(n)) }
func (s l1Stats) RecordMisses(n int)              { s.m.lookups.WithLabelValues("l1", "miss").Add(float64(n)) }
func (s l1Stats) RecordEviction(uint32)           {}
func (s l1Stats) RecordLoadSuccess(time.Duration) {}
func (s l1Stats) RecordLoadFailure(time.Duration) {}
