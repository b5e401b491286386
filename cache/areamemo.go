package cache

import (
	"context"
	"strconv"
	"time"
	"unsafe"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"github.com/guidepost/guidepost/guides"
)

// areaMemo keeps answers the store computed over an area (vector tiles,
// clusterings), each with the stamp the area had (see areaStamps). One is
// served only while its stamp is the area's current one, so it is never
// older than the versions and like counts this process knows; a write
// anywhere in the area makes the next request compute it again, once
// however many ask at the same moment.
type areaMemo[K comparable, V any] struct {
	l1     *otter.Cache[K, *stamped[V]]
	flight singleflight.Group
	// The result counter's children, found once: a hit must not hash
	// its label on every request.
	hit, miss, uncached prometheus.Counter
}

type stamped[V any] struct {
	stamp uint64
	v     V
}

func newAreaMemo[K comparable, V any](maxBytes uint64, weigh func(V) uint32, result *prometheus.CounterVec) *areaMemo[K, V] {
	l1 := otter.Must(&otter.Options[K, *stamped[V]]{
		MaximumWeight: maxBytes,
		Weigher:       func(_ K, s *stamped[V]) uint32 { return weigh(s.v) + 96 },
	})
	return &areaMemo[K, V]{l1: l1, hit: result.WithLabelValues("hit"), miss: result.WithLabelValues("miss"),
		uncached: result.WithLabelValues("uncached")}
}

// areaLoadTimeout bounds one computation, which runs on for the others
// waiting on it even if the request that started it goes away.
const areaLoadTimeout = 5 * time.Second

// answer returns q's answer over tile rows r0..r1 and columns c0..c1 from
// memory while the area is unchanged, else from load (key names q for the
// single flight; made only on a miss).
func (m *areaMemo[K, V]) answer(ctx context.Context, c *Guides, q K, key func() string, area [4]int64,
	load func(context.Context) (V, error)) (V, error) {
	stamp, ok := c.AreaStamp(area[0], area[1], area[2], area[3])
	if !ok {
		m.uncached.Inc()
		return load(ctx)
	}
	if s, ok := m.l1.GetIfPresent(q); ok && s.stamp == stamp {
		m.hit.Inc()
		return s.v, nil
	}
	m.miss.Inc()
	v, err, _ := m.flight.Do(key()+"/"+strconv.FormatUint(stamp, 16), func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), areaLoadTimeout)
		defer cancel()
		v, err := load(lctx)
		if err != nil {
			return nil, err
		}
		// Kept only if nothing in the area changed while it was computed.
		if after, ok := c.AreaStamp(area[0], area[1], area[2], area[3]); ok && after == stamp {
			m.l1.Set(q, &stamped[V]{stamp: stamp, v: v})
		}
		return v, nil
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

// clustersWeight is about what a clustering holds in memory: the clusters,
// and the top guide's item (tags, title) when asked for.
func clustersWeight(cl []guides.Cluster) uint32 {
	w := uint64(len(cl)) * uint64(unsafe.Sizeof(guides.Cluster{}))
	for i := range cl {
		w += uint64(len(cl[i].Top.Title) + len(cl[i].Top.ID) + 16*len(cl[i].Top.Tags))
	}
	return uint32(min(w, 1<<31))
}
