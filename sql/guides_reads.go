package sql

import (
	"context"

	"github.com/guidepost/guidepost/guides"
)

// Where the guide store's reads go. Map and guide reads go to a replica
// that has replayed every tile version this process knows (and the
// caller's own writes): they answer exactly what the primary would at the
// versions the cache follows, whichever pool serves them. A tile load
// needs only its own tiles' versions. With no replica, the primary reads.

func (s *Guides) Guide(ctx context.Context, id, viewerID string) (g guides.Guide, err error) {
	err = s.db.mapRead(ctx, func(ctx context.Context) error { g, err = s.readGuide(ctx, id, viewerID); return err })
	return g, err
}

func (s *Guides) Nearby(ctx context.Context, q guides.NearbyQuery) (items []guides.Item, err error) {
	err = s.db.mapRead(ctx, func(ctx context.Context) error { items, err = s.readNearby(ctx, q); return err })
	return items, err
}

func (s *Guides) InBBox(ctx context.Context, q guides.BBoxQuery) (items []guides.Item, truncated bool, err error) {
	err = s.db.mapRead(ctx, func(ctx context.Context) error { items, truncated, err = s.readBBox(ctx, q); return err })
	return items, truncated, err
}

func (s *Guides) Clusters(ctx context.Context, q guides.ClusterQuery) (out []guides.Cluster, err error) {
	err = s.db.mapRead(ctx, func(ctx context.Context) error { out, err = s.readClusters(ctx, q, nil); return err })
	return out, err
}

// ClustersWithout is Clusters without the guides of authors.
func (s *Guides) ClustersWithout(ctx context.Context, q guides.ClusterQuery, authors []string) (out []guides.Cluster, err error) {
	err = s.db.mapRead(ctx, func(ctx context.Context) error { out, err = s.readClusters(ctx, q, authors); return err })
	return out, err
}

func (s *Guides) VectorTile(ctx context.Context, q guides.VectorTileQuery) (out []byte, err error) {
	err = s.db.mapRead(ctx, func(ctx context.Context) error { out, err = s.readVectorTile(ctx, q); return err })
	return out, err
}

func (s *Guides) ByAuthor(ctx context.Context, q guides.MineQuery) (items []guides.Item, err error) {
	err = s.db.mapRead(ctx, func(ctx context.Context) error { items, err = s.readByAuthor(ctx, q); return err })
	return items, err
}

// ViewerStates needs only the viewer's own writes (its liked_by_me).
func (s *Guides) ViewerStates(ctx context.Context, viewerID string, ids []string) (out map[string]guides.LikeState, err error) {
	err = s.db.read(ctx, 0, func(ctx context.Context) error { out, err = s.readViewerStates(ctx, viewerID, ids); return err })
	return out, err
}

// LoadTiles reads from a replica only once it holds the versions the cache
// knows for these tiles (tileMarks): a tile is never loaded older than its
// version, so the cache stays exact.
func (s *Guides) LoadTiles(ctx context.Context, tiles []int64, maxGuides int) (out []guides.Tile, err error) {
	var need uint64
	if marks := s.db.tileMarks(); marks != nil {
		need = marks.need(tiles)
	}
	err = s.db.read(ctx, need, func(ctx context.Context) error { out, err = s.readTiles(ctx, tiles, maxGuides); return err })
	return out, err
}

// LoadSubTiles waits for the same replica position as LoadTiles: a part
// carries its tile's version.
func (s *Guides) LoadSubTiles(ctx context.Context, parts []guides.SubTile, maxGuides int) (out []guides.Tile, err error) {
	var need uint64
	if marks := s.db.tileMarks(); marks != nil {
		tiles := make([]int64, len(parts))
		for i, p := range parts {
			tiles[i] = p.Tile
		}
		need = marks.need(tiles)
	}
	err = s.db.read(ctx, need, func(ctx context.Context) error { out, err = s.readSubTiles(ctx, parts, maxGuides); return err })
	return out, err
}
