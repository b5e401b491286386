package cache

import (
	"context"
	"slices"
	"strconv"

	"github.com/guidepost/guidepost/guides"
)

// AreaStamp is the stamp of tile rows r0..r1 and columns c0..c1, naming
// the database too; false until the cache follows versions and has read
// the like counts, and whenever it loses the feed.
func (c *Guides) AreaStamp(r0, r1, c0, c1 int64) (uint64, bool) {
	p := c.prefix.Load()
	if p == nil || !c.synced.Load() || c.likesAt.Load() == 0 {
		return 0, false
	}
	return c.stamps.sum(r0, r1, c0, c1) + fnv64a(*p), true
}

// fnv64a is hash/fnv's 64-bit FNV-1a of s, without its allocations.
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// VectorTile answers a tile from memory while its area is unchanged, else
// from the store. A low-zoom tile is cut from a wide clustering (a zoom-5
// tile over Korea sums ~2,500 block rows at 1 M guides), so it takes its
// turn with the wide clusterings: a map's first screen asks for several
// at once, and cut together they all passed their deadline.
func (c *Guides) VectorTile(ctx context.Context, q guides.VectorTileQuery) ([]byte, error) {
	r0, r1, c0, c1 := q.Clusters().Tiles()
	key := func() string {
		return strconv.Itoa(q.Z) + "/" + strconv.Itoa(q.X) + "/" + strconv.Itoa(q.Y) + "/" + q.Tag
	}
	return c.vtiles.answer(ctx, c, q, key, [4]int64{r0, r1, c0, c1}, func(ctx context.Context) ([]byte, error) {
		release, err := c.wideTurn(ctx, r0, r1, c0, c1)
		if err != nil {
			return nil, err
		}
		defer release()
		return c.Store.VectorTile(ctx, q)
	})
}

// wideTurn waits, when tiles r0..r1 × c0..c1 are more than
// WideClusterTiles, for one of the WideClusterings slots; release gives it
// back.
func (c *Guides) wideTurn(ctx context.Context, r0, r1, c0, c1 int64) (release func(), err error) {
	if (r1-r0+1)*(c1-c0+1) <= c.opt.WideClusterTiles {
		return func() {}, nil
	}
	select {
	case c.wide <- struct{}{}:
		return func() { <-c.wide }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Clusters answers a clustering from memory while its area is unchanged,
// else from the store. A map of the whole world counts every tile row
// (~10^5 at 1 M guides): repeated, it is one computation per change in
// its area, not one per request. The answer is a copy: callers round
// what they are given in place.
func (c *Guides) Clusters(ctx context.Context, q guides.ClusterQuery) ([]guides.Cluster, error) {
	r0, r1, c0, c1 := q.Tiles()
	b := q.BBox
	key := func() string {
		return strconv.FormatFloat(b.MinLng, 'g', -1, 64) + "," + strconv.FormatFloat(b.MinLat, 'g', -1, 64) + "," +
			strconv.FormatFloat(b.MaxLng, 'g', -1, 64) + "," + strconv.FormatFloat(b.MaxLat, 'g', -1, 64) + "/" +
			strconv.Itoa(q.Zoom) + "/" + strconv.FormatBool(q.WithTop) + "/" + q.Tag
	}
	clusters, err := c.clusters.answer(ctx, c, q, key, [4]int64{r0, r1, c0, c1}, func(ctx context.Context) ([]guides.Cluster, error) {
		release, err := c.wideTurn(ctx, r0, r1, c0, c1)
		if err != nil {
			return nil, err
		}
		defer release()
		return c.Store.Clusters(ctx, q)
	})
	return slices.Clone(clusters), err
}
