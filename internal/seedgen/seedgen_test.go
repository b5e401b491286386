package seedgen

import (
	"math/rand/v2"
	"testing"

	"github.com/guidepost/guidepost/guides"
)

// The scale benchmarks seed 100 k, 1 M and 10 M guides and compare their
// latencies: that measures the data's size only if every part of the map
// grows with n. A city centre must get denser in proportion (a fixed city
// topped up with empty land would leave every dense viewport as it was),
// and so must the countryside.
func TestSpreadScalesEveryDensityWithN(t *testing.T) {
	places := []struct {
		name string
		box  guides.BBox
	}{
		{"central Seoul", guides.BBox{MinLng: 126.96, MinLat: 37.55, MaxLng: 127.00, MaxLat: 37.59}},
		{"central Busan", guides.BBox{MinLng: 129.05, MinLat: 35.16, MaxLng: 129.09, MaxLat: 35.20}},
		{"countryside", guides.BBox{MinLng: 127.5, MinLat: 36.0, MaxLng: 128.0, MaxLat: 36.5}},
	}
	const small, large = 40_000, 320_000
	count := func(n int) []int {
		got := make([]int, len(places))
		for _, s := range spread(rand.New(rand.NewPCG(3, 4)), n) {
			for i, p := range places {
				if p.box.Contains(s.lat, s.lng) {
					got[i]++
				}
			}
		}
		return got
	}
	a, b := count(small), count(large)
	for i, p := range places {
		if a[i] < 100 {
			t.Fatalf("%s: %d guides of %d, too few to compare", p.name, a[i], small)
		}
		ratio := float64(b[i]) / float64(a[i])
		if want := float64(large) / small; ratio < want*0.85 || ratio > want*1.15 {
			t.Errorf("%s: %d guides at n=%d, %d at n=%d: grew %.2f×, want %.0f× (the density must scale with n)",
				p.name, a[i], small, b[i], large, ratio, want)
		}
	}
}

// Rows are written in tile order, so a tile's guides share pages.
func TestSpreadIsInTileOrder(t *testing.T) {
	spots := spread(rand.New(rand.NewPCG(1, 2)), 5000)
	for i := 1; i < len(spots); i++ {
		if spots[i].tile < spots[i-1].tile {
			t.Fatalf("spot %d in tile %d after tile %d", i, spots[i].tile, spots[i-1].tile)
		}
		if spots[i].tile != guides.TileOf(spots[i].lat, spots[i].lng) {
			t.Fatalf("spot %d: tile %d, its location is in %d", i, spots[i].tile, guides.TileOf(spots[i].lat, spots[i].lng))
		}
	}
}
