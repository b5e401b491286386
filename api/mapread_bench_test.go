package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// memoryGuides answers map reads from memory, as a warm cache does (items
// keep their Encoded slot from one answer to the next), and names the
// stamp of every area: what the map routes cost in the API itself.
type memoryGuides struct {
	guides.Store
	items    []guides.Item
	clusters []guides.Cluster
	tile     []byte
	stamp    atomic.Uint64
}

func newMemoryGuides() *memoryGuides {
	m := &memoryGuides{tile: make([]byte, 900)}
	created := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for i := range 150 {
		lat, lng := 37.55+float64(i)*0.0002, 126.96+float64(i)*0.0003
		m.items = append(m.items, guides.Item{
			ID: fmt.Sprintf("0193%04x-0000-7000-8000-000000000000", i), Author: guides.Author{ID: "0193aaaa-0000-7000-8000-000000000000", DisplayName: "Ji-woo"},
			Title: fmt.Sprintf("Guide %d near City Hall", i), Lat: lat, Lng: lng, DistanceM: float64(i) * 17.3, LikeCount: int64(i % 7),
			Tags: []string{"food", "view"}, CreatedAt: created.Add(time.Duration(i) * time.Minute), Encoded: &guides.Encoded{}})
		if i%40 == 0 {
			m.clusters = append(m.clusters, guides.Cluster{Lat: lat, Lng: lng, Count: 40,
				Bounds: guides.BBox{MinLng: lng - 0.01, MinLat: lat - 0.01, MaxLng: lng + 0.01, MaxLat: lat + 0.01}})
		}
	}
	return m
}

func (m *memoryGuides) AreaStamp(r0, r1, c0, c1 int64) (uint64, bool) { return m.stamp.Load(), true }

func (m *memoryGuides) Nearby(_ context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	return slices.Clone(m.items[:min(q.Limit, len(m.items))]), nil
}

func (m *memoryGuides) InBBox(_ context.Context, q guides.BBoxQuery) ([]guides.Item, bool, error) {
	n := min(q.Limit, len(m.items))
	return slices.Clone(m.items[:n]), n < len(m.items), nil
}

func (m *memoryGuides) Clusters(context.Context, guides.ClusterQuery) ([]guides.Cluster, error) {
	return slices.Clone(m.clusters), nil
}

func (m *memoryGuides) VectorTile(context.Context, guides.VectorTileQuery) ([]byte, error) {
	return m.tile, nil
}

// BenchmarkMapReads: one map read through the whole router, served from
// memory: "kept" is a hot URL (the answer kept for its version; lists of
// 100 are too large to keep, only their version's name is), "304" a client
// holding the version, "built" an area written since the last request
// (the answer built, named and kept).
//
//	go test ./api -run '^$' -bench MapReads -benchmem
func BenchmarkMapReads(b *testing.B) {
	store := newMemoryGuides()
	svc := guides.New(guides.Deps{Store: store, Clock: guidepost.SystemClock{}, Stamps: store},
		guides.Config{CursorKey: guides.CursorKey("bench-cursor-key-of-32-bytes-long")})
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), Guides: svc}, Config{})
	routes := []struct{ name, path string }{
		{"nearby", "/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000"},
		{"nearby20", "/v1/guides/nearby?lat=37.5665&lng=126.978&radius_m=3000&limit=20"},
		{"viewport", "/v1/guides?bbox=126.95,37.55,127.0,37.58"},
		{"viewport20", "/v1/guides?bbox=126.95,37.55,127.0,37.58&limit=20"},
		{"clusters", "/v1/guides/clusters?bbox=126.9,37.5,127.05,37.6&zoom=12.5"},
		{"tile", "/v1/tiles/14/13970/6344.mvt"},
	}
	get := func(path, ifNoneMatch string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec
	}
	for _, r := range routes {
		for _, mode := range []string{"kept", "304", "built"} {
			b.Run(r.name+"/"+mode, func(b *testing.B) {
				first := get(r.path, "") // named and kept
				tag, want := "", 200
				if mode == "304" {
					tag, want = first.Header().Get("ETag"), 304
				}
				if first.Code != 200 || first.Header().Get("ETag") == "" {
					b.Fatalf("GET %s: %d, ETag %q: %s", r.path, first.Code, first.Header().Get("ETag"), first.Body)
				}
				b.ReportAllocs()
				for b.Loop() {
					if mode == "built" {
						store.stamp.Add(1)
					}
					if rec := get(r.path, tag); rec.Code != want {
						b.Fatalf("GET %s: %d", r.path, rec.Code)
					}
				}
			})
		}
	}
}
