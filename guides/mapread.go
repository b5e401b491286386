package guides

import "context"

// A map read (a radius search, a viewport, a clustering, a vector tile) is
// validated once, into a read value, before anything is read. Its version
// (version.go) and its answer both come from that value, so naming the
// version again after the answer is built checks nothing twice.

// NearbyRead is a validated radius search.
type NearbyRead struct {
	s      *Service
	q      NearbyQuery
	fp     []byte // what its cursors are bound to
	depth  int    // guides on the pages before this one
	viewer string
}

// ReadNearby validates p; nothing is read until Answer.
func (s *Service) ReadNearby(p NearbyParams) (NearbyRead, error) {
	q, fp, depth, err := p.query(s.cursor, s.clock.Now())
	if err != nil {
		return NearbyRead{}, err
	}
	return NearbyRead{s: s, q: q, fp: fp, depth: depth, viewer: p.ViewerID}, nil
}

// Nearby answers a radius search, sorted by distance then id, one page at a
// time.
func (s *Service) Nearby(ctx context.Context, p NearbyParams) (NearbyPage, error) {
	r, err := s.ReadNearby(p)
	if err != nil {
		return NearbyPage{}, err
	}
	return r.Answer(ctx)
}

// Answer reads the page.
func (r NearbyRead) Answer(ctx context.Context) (NearbyPage, error) {
	s, q, now := r.s, r.q, r.s.clock.Now()
	set, err := s.blocked(ctx, r.viewer)
	if err != nil {
		return NearbyPage{}, err
	}
	limit := q.Limit
	q.Limit++ // one more tells whether there is a next page
	items, err := s.nearbyVisible(ctx, q, set)
	if err != nil {
		return NearbyPage{}, err
	}
	page := NearbyPage{Items: items}
	if len(items) > limit {
		page.Items, page.Truncated = items[:limit], true
		last := items[limit-1]
		page.NextCursor = s.cursor.encode(fingerprintOf(r.fp, r.q), cursorAt{Position: Position{DistanceM: last.DistanceM, ID: last.ID},
			Depth: r.depth + limit, Issued: now.Truncate(cursorIssueWindow)})
	}
	if err := s.finish(ctx, r.viewer, page.Items); err != nil {
		return NearbyPage{}, err
	}
	return page, nil
}

// BBoxRead is a validated viewport search.
type BBoxRead struct {
	s      *Service
	q      BBoxQuery
	fp     []byte
	depth  int
	viewer string
}

// ReadBBox validates p; nothing is read until Answer.
func (s *Service) ReadBBox(p BBoxParams) (BBoxRead, error) {
	q, fp, depth, err := p.query(s.cursor, s.clock.Now())
	if err != nil {
		return BBoxRead{}, err
	}
	return BBoxRead{s: s, q: q, fp: fp, depth: depth, viewer: p.ViewerID}, nil
}

// InBBox answers a viewport search: the newest guides inside it, a page at
// a time.
func (s *Service) InBBox(ctx context.Context, p BBoxParams) (BBoxPage, error) {
	r, err := s.ReadBBox(p)
	if err != nil {
		return BBoxPage{}, err
	}
	return r.Answer(ctx)
}

// Answer reads the page.
func (r BBoxRead) Answer(ctx context.Context) (BBoxPage, error) {
	s, now := r.s, r.s.clock.Now()
	set, err := s.blocked(ctx, r.viewer)
	if err != nil {
		return BBoxPage{}, err
	}
	items, truncated, err := s.bboxVisible(ctx, r.q, set)
	if err != nil {
		return BBoxPage{}, err
	}
	page := BBoxPage{Items: items, Truncated: truncated}
	if truncated && len(items) > 0 {
		page.NextCursor = s.cursor.encode(fingerprintOf(r.fp, r.q), cursorAt{Position: Position{ID: items[len(items)-1].ID},
			Depth: r.depth + len(items), Issued: now.Truncate(cursorIssueWindow)})
	}
	if err := s.finish(ctx, r.viewer, page.Items); err != nil {
		return BBoxPage{}, err
	}
	return page, nil
}

// ClustersRead is a validated clustering.
type ClustersRead struct {
	s      *Service
	q      ClusterQuery
	viewer string
}

// ReadClusters validates p; nothing is read until Answer.
func (s *Service) ReadClusters(p ClusterParams) (ClustersRead, error) {
	q, err := p.query()
	if err != nil {
		return ClustersRead{}, err
	}
	return ClustersRead{s: s, q: q, viewer: p.ViewerID}, nil
}

// Clusters answers a grid clustering of a viewport at a zoom.
func (s *Service) Clusters(ctx context.Context, p ClusterParams) ([]Cluster, error) {
	r, err := s.ReadClusters(p)
	if err != nil {
		return nil, err
	}
	return r.Answer(ctx)
}

// Answer counts the clusters.
func (r ClustersRead) Answer(ctx context.Context) ([]Cluster, error) {
	set, err := r.s.blocked(ctx, r.viewer)
	if err != nil {
		return nil, err
	}
	clusters, err := r.s.clustersVisible(ctx, r.q, set)
	if err != nil {
		return nil, err
	}
	for i := range clusters {
		clusters[i] = clusters[i].shown(r.q.Zoom)
	}
	return clusters, nil
}

// TileRead is a validated vector tile.
type TileRead struct {
	s *Service
	q VectorTileQuery
}

// ReadTile validates p; nothing is read until Answer.
func (s *Service) ReadTile(p VectorTileParams) (TileRead, error) {
	q, err := p.query()
	if err != nil {
		return TileRead{}, err
	}
	return TileRead{s: s, q: q}, nil
}

// VectorTile answers a map tile: nil when it holds no guide.
func (s *Service) VectorTile(ctx context.Context, p VectorTileParams) ([]byte, error) {
	r, err := s.ReadTile(p)
	if err != nil {
		return nil, err
	}
	return r.Answer(ctx)
}

// Answer encodes the tile: nil when it holds no guide.
func (r TileRead) Answer(ctx context.Context) ([]byte, error) {
	return r.s.store.VectorTile(ctx, r.q)
}

// fingerprintOf is fp, the fingerprint the read's cursor was checked
// with, or q's made now when the read came without one.
func fingerprintOf(fp []byte, q interface{ fingerprint() []byte }) []byte {
	if fp != nil {
		return fp
	}
	return q.fingerprint()
}
