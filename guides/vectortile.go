package guides

import (
	"fmt"
	"math"

	"github.com/guidepost/guidepost"
)

// Vector tiles (Mapbox Vector Tile, web-mercator z/x/y) carry the clusters
// of /v1/guides/clusters at the tile's zoom: a cell holding one guide is a
// point in layer "guides", a cell holding more a point in layer
// "clusters". A tile holds the cells whose point (the guide, or the
// centroid) falls inside it or its buffer, so a few dozen features at any
// zoom, however dense the city: tiles stay small by construction.
const (
	MaxTileZoom = 20
	// TileExtent is the tile's coordinate space; TileBuffer the margin kept
	// beyond its edges (in those units), so that a marker drawn on an edge
	// is not cut in half by the tile's clipping.
	TileExtent = 4096
	TileBuffer = 64
)

// Layer names inside a tile.
const (
	LayerGuides   = "guides"
	LayerClusters = "clusters"
)

// VectorTileParams is a tile request as the URL names it.
type VectorTileParams struct {
	Z, X, Y int
	Tag     string
}

// VectorTileQuery is a validated tile request.
type VectorTileQuery struct {
	Z, X, Y int
	Tag     string
}

func (p VectorTileParams) query() (VectorTileQuery, error) {
	var f guidepost.Fields
	if p.Z < 0 || p.Z > MaxTileZoom {
		f.Add("z", guidepost.FOUTOFRANGE, fmt.Sprintf("must be between 0 and %d", MaxTileZoom))
	} else {
		n := 1 << p.Z
		if p.X < 0 || p.X >= n {
			f.Add("x", guidepost.FOUTOFRANGE, fmt.Sprintf("must be between 0 and %d at zoom %d", n-1, p.Z))
		}
		if p.Y < 0 || p.Y >= n {
			f.Add("y", guidepost.FOUTOFRANGE, fmt.Sprintf("must be between 0 and %d at zoom %d", n-1, p.Z))
		}
	}
	tag := checkTagFilter(&f, p.Tag)
	if err := f.Err(); err != nil {
		return VectorTileQuery{}, err
	}
	return VectorTileQuery{Z: p.Z, X: p.X, Y: p.Y, Tag: tag}, nil
}

// Bounds is the tile with its buffer in longitude and latitude, widened a
// little so that it holds every point ST_AsMVTGeom keeps whatever the
// rounding of the projection.
func (q VectorTileQuery) Bounds() BBox {
	n := float64(int64(1) << q.Z)
	b := float64(TileBuffer) / TileExtent
	const slack = 1e-9
	lng := func(x float64) float64 { return x/n*360 - 180 }
	lat := func(y float64) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*y/n))) * 180 / math.Pi }
	return BBox{
		MinLng: max(lng(float64(q.X)-b)-slack, -180), MaxLng: min(lng(float64(q.X+1)+b)+slack, 180),
		MinLat: max(lat(float64(q.Y+1)+b)-slack, -90), MaxLat: min(lat(float64(q.Y)-b)+slack, 90),
	}
}

// Clusters is the clustering a tile is cut from: the cells of the tile's
// zoom that meet its buffered bounds, each with its most-liked guide.
func (q VectorTileQuery) Clusters() ClusterQuery {
	return ClusterQuery{BBox: q.Bounds(), Zoom: q.Z, Tag: q.Tag, WithTop: true}
}
