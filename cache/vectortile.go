package cache

import (
	"context"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/singleflight"

	"github.com/guidepost/guidepost/guides"
)

// vectorTiles keeps encoded vector tiles, each with the stamp of the area
// it was cut from (see areaStamps). A tile is served only while its stamp
// is the area's current one, so it is never older than the versions and
// like counts this process knows; a write anywhere in the area makes the
// next request cut it again, once however many ask at the same moment.
type vectorTiles struct {
	l1     *otter.Cache[guides.VectorTileQuery, *vectorTile]
	flight singleflight.Group
}

type vectorTile struct {
	stamp uint64
	data  []byte // nil: an empty tile
}

func newVectorTiles(maxBytes uint64) vectorTiles {
	return vectorTiles{l1: otter.Must(&otter.Options[guides.VectorTileQuery, *vectorTile]{
		MaximumWeight: maxBytes,
		Weigher:       func(_ guides.VectorTileQuery, t *vectorTile) uint32 { return uint32(len(t.data)) + 96 },
	})}
}

// vectorTileLoadTimeout bounds one cut of a tile, which runs on for the
// others waiting on it even if the request that started it goes away.
const vectorTileLoadTimeout = 5 * time.Second

// AreaStamp is the stamp of tile rows r0..r1 and columns c0..c1, naming
// the database too; false until the cache follows versions and has read
// the like counts, and whenever it loses the feed.
func (c *Guides) AreaStamp(r0, r1, c0, c1 int64) (uint64, bool) {
	p := c.prefix.Load()
	if p == nil || !c.synced.Load() || c.likesAt.Load() == 0 {
		return 0, false
	}
	h := fnv.New64a()
	h.Write([]byte(*p))
	return c.stamps.sum(r0, r1, c0, c1) + h.Sum64(), true
}

// VectorTile answers a tile from memory while its area is unchanged, else
// from the store.
func (c *Guides) VectorTile(ctx context.Context, q guides.VectorTileQuery) ([]byte, error) {
	r0, r1, c0, c1 := q.Clusters().Tiles()
	stamp, ok := c.AreaStamp(r0, r1, c0, c1)
	if !ok {
		c.m.vectorTiles.WithLabelValues("uncached").Inc()
		return c.Store.VectorTile(ctx, q)
	}
	if t, ok := c.vtiles.l1.GetIfPresent(q); ok && t.stamp == stamp {
		c.m.vectorTiles.WithLabelValues("hit").Inc()
		return t.data, nil
	}
	c.m.vectorTiles.WithLabelValues("miss").Inc()
	key := strconv.Itoa(q.Z) + "/" + strconv.Itoa(q.X) + "/" + strconv.Itoa(q.Y) + "/" + strconv.FormatUint(stamp, 16) + "/" + q.Tag
	v, err, _ := c.vtiles.flight.Do(key, func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), vectorTileLoadTimeout)
		defer cancel()
		data, err := c.Store.VectorTile(lctx, q)
		if err != nil {
			return nil, err
		}
		// Kept only if nothing in the area changed while it was cut.
		if after, ok := c.AreaStamp(r0, r1, c0, c1); ok && after == stamp {
			c.vtiles.l1.Set(q, &vectorTile{stamp: stamp, data: data})
		}
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}
