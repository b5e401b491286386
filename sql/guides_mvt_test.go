package sql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/maptile"

	"github.com/guidepost/guidepost/guides"
	gsql "github.com/guidepost/guidepost/sql"
)

// tileAt is the tile of zoom z holding a point.
func tileAt(lat, lng float64, z int) guides.VectorTileQuery {
	t := maptile.At(orb.Point{lng, lat}, maptile.Zoom(z))
	return guides.VectorTileQuery{Z: z, X: int(t.X), Y: int(t.Y)}
}

// inTile reports whether a point falls inside q's tile or its buffer, in
// tile units, as ST_AsMVTGeom decides.
func inTile(q guides.VectorTileQuery, lat, lng float64) bool {
	n := math.Exp2(float64(q.Z))
	px := (lng+180)/360*n - float64(q.X)
	phi := lat * math.Pi / 180
	py := (1-math.Log(math.Tan(phi)+1/math.Cos(phi))/math.Pi)/2*n - float64(q.Y)
	b := float64(guides.TileBuffer) / guides.TileExtent
	return px >= -b && px <= 1+b && py >= -b && py <= 1+b
}

// decodeTile unmarshals a tile and projects it back to longitude and
// latitude.
func decodeTile(t *testing.T, q guides.VectorTileQuery, data []byte) map[string]*mvt.Layer {
	t.Helper()
	layers, err := mvt.Unmarshal(data)
	if err != nil {
		t.Fatalf("tile %d/%d/%d does not decode: %v", q.Z, q.X, q.Y, err)
	}
	layers.ProjectToWGS84(maptile.New(uint32(q.X), uint32(q.Y), maptile.Zoom(q.Z)))
	out := map[string]*mvt.Layer{}
	for _, l := range layers {
		if l.Extent != guides.TileExtent {
			t.Errorf("layer %s extent %d", l.Name, l.Extent)
		}
		out[l.Name] = l
	}
	return out
}

// A tile holds exactly the clusters of its zoom whose point falls in it:
// single guides in "guides" with their id, title, like count, ThumbHash
// and tags, the others in "clusters" with their count, expansion zoom and
// most-liked guide; with a tag, only guides that carry it. An empty tile
// is nil.
func TestVectorTilesHoldTheClustersOfTheirZoom(t *testing.T) {
	ctx := context.Background()
	db, store, _ := clusterWorld(t, 4000)
	// A guide with a photo, liked by everyone: the top of its clusters.
	author := guideUser(t, db)
	photo := guideMedia(t, db, author, "ready")
	star := guideRow(t, store, author, 37.5665, 126.9780, photo)
	for range 30 {
		if _, err := store.Like(ctx, star, guides.Liker{UserID: guideUser(t, db)}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for _, z := range []int{6, 10, 13, 14, 17, 20} {
		for _, tag := range []string{"", "food"} {
			q := tileAt(37.5665, 126.9780, z)
			q.Tag = tag
			checkTile(t, store, q, star)
		}
	}
	empty, err := store.VectorTile(ctx, tileAt(0, -150, 10)) // the Pacific
	if err != nil || empty != nil {
		t.Fatalf("a tile of ocean: %d bytes, %v", len(empty), err)
	}
}

func checkTile(t *testing.T, store *gsql.Guides, q guides.VectorTileQuery, star string) {
	t.Helper()
	ctx := context.Background()
	data, err := store.VectorTile(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	clusters, err := store.Clusters(ctx, q.Clusters())
	if err != nil {
		t.Fatal(err)
	}
	singles, multis := map[string]guides.Cluster{}, map[string]guides.Cluster{}
	for _, c := range clusters {
		switch {
		case !inTile(q, c.Lat, c.Lng):
		case c.Count == 1:
			singles[c.Top.ID] = c
		default:
			multis[c.Top.ID] = c
		}
	}
	layers := decodeTile(t, q, data)
	name := func() string { return fmt.Sprintf("tile %d/%d/%d tag %q", q.Z, q.X, q.Y, q.Tag) }
	var gs, cs []*mvtFeature
	if l := layers[guides.LayerGuides]; l != nil {
		gs = features(l)
	}
	if l := layers[guides.LayerClusters]; l != nil {
		cs = features(l)
	}
	if len(gs) != len(singles) || len(cs) != len(multis) {
		t.Fatalf("%s: %d guides and %d clusters, want %d and %d", name(), len(gs), len(cs), len(singles), len(multis))
	}
	for _, f := range gs {
		c, ok := singles[f.str("id")]
		if !ok {
			t.Fatalf("%s: guide %v is not a single of the tile", name(), f.props)
		}
		var tags []string
		if err := json.Unmarshal([]byte(f.str("tags")), &tags); err != nil || !slices.Equal(tags, c.Top.Tags) {
			t.Errorf("%s: tags %q, want %q", name(), f.str("tags"), c.Top.Tags)
		}
		if q.Tag != "" && !slices.Contains(tags, q.Tag) {
			t.Errorf("%s: a guide without the tag: %v", name(), tags)
		}
		if f.str("title") != c.Top.Title || f.num("like_count") != float64(c.Top.LikeCount) || f.str("thumbhash") != c.Top.Cover.ThumbHash ||
			f.str("author_id") != c.Top.Author.ID || c.Top.Author.ID == "" {
			t.Errorf("%s: guide %v, want %+v", name(), f.props, c.Top)
		}
		f.near(t, q, c)
	}
	for _, f := range cs {
		c, ok := multis[f.str("top_guide_id")]
		if !ok {
			t.Fatalf("%s: cluster %v is not a cluster of the tile", name(), f.props)
		}
		if f.num("count") != float64(c.Count) || f.num("expansion_zoom") != float64(guides.ExpansionZoom(c.Bounds, q.Z)) ||
			f.str("top_thumbhash") != c.Top.Cover.ThumbHash {
			t.Errorf("%s: cluster %v, want %+v", name(), f.props, c)
		}
		if c.Top.ID == star && f.str("top_thumbhash") == "" {
			t.Errorf("%s: the most-liked guide's ThumbHash is missing", name())
		}
		f.near(t, q, c)
	}
	t.Logf("%s: %d bytes, %d guides, %d clusters", name(), len(data), len(gs), len(cs))
}

type mvtFeature struct {
	props map[string]any
	at    orb.Point
}

func features(l *mvt.Layer) []*mvtFeature {
	out := make([]*mvtFeature, len(l.Features))
	for i, f := range l.Features {
		out[i] = &mvtFeature{props: f.Properties, at: f.Geometry.(orb.Point)}
	}
	return out
}

func (f *mvtFeature) str(k string) string { s, _ := f.props[k].(string); return s }

// num is a number property, 0 when absent (as expansion_zoom is for
// guides that never split).
func (f *mvtFeature) num(k string) float64 { n, _ := f.props[k].(float64); return n }

// near checks the feature sits where the cluster is, to a tile unit.
func (f *mvtFeature) near(t *testing.T, q guides.VectorTileQuery, c guides.Cluster) {
	t.Helper()
	unit := 360 / math.Exp2(float64(q.Z)) / guides.TileExtent
	if math.Abs(f.at.Lon()-c.Lng) > unit || math.Abs(f.at.Lat()-c.Lat) > unit {
		t.Errorf("tile %d/%d/%d: feature at %v, cluster at %v,%v", q.Z, q.X, q.Y, f.at, c.Lng, c.Lat)
	}
}
