package main

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// A trace is the same for the same seed (the floor replays exactly what
// the API got), asks for tiles a phone sees (a few per view, at zooms a
// map shows) and comes back to tiles it has seen, which it revalidates.
func TestTileTraceIsAReplayableMapSession(t *testing.T) {
	a, b := newTileTrace(7, 50, 5000), newTileTrace(7, 50, 5000)
	if !slices.Equal(a.paths, b.paths) || !slices.Equal(a.sess, b.sess) {
		t.Fatal("two traces from one seed differ")
	}
	seen := map[string]bool{}
	again := 0
	for i, p := range a.paths {
		if !strings.HasPrefix(p, "/v1/tiles/") || !strings.Contains(p, ".mvt") {
			t.Fatalf("arrival %d: %q", i, p)
		}
		key := string(rune(a.sess[i])) + p
		if seen[key] {
			again++
		}
		seen[key] = true
	}
	if share := float64(again) / float64(len(a.paths)); share < 0.2 || share > 0.9 {
		t.Errorf("sessions come back to %.0f %% of their tiles: not a panning map", 100*share)
	}
	if n := len(a.distinct()); n < 200 || n > 5000 {
		t.Errorf("%d distinct tiles in 5,000 arrivals", n)
	}
}

// Against the fake: the API and the floor both answer the trace, the
// revalidations come back 304, and the sizes are measured.
func TestTilesScenarioMeasuresTheAPIBesideItsFloor(t *testing.T) {
	srv := newFakeAPI().start(t)
	cfg := testConfig(t, "tiles", srv.URL)
	cfg.Rate = 200
	sum := mustRun(t, cfg)
	ts := sum.Tiles
	if ts == nil || sum.Totals.Requests == 0 || sum.Totals.SuccessRate != 1 {
		t.Fatalf("tiles: %+v, totals %+v", ts, sum.Totals)
	}
	// The floor replays the same trace, but a session's next tile may be
	// sent before its previous answer (and ETag) is back, more often on a
	// busy machine: the shares are close, not equal.
	if ts.Share304 <= 0.05 || ts.Share204 <= 0.05 || math.Abs(ts.FloorShare304-ts.Share304) > 0.1 {
		t.Errorf("304 share %.2f (floor %.2f), 204 share %.2f", ts.Share304, ts.FloorShare304, ts.Share204)
	}
	if ts.Floor.P95 <= 0 || ts.P95Ratio <= 0 || ts.MaxGzipBytes == 0 || len(ts.Seoul) != 3 || ts.Seoul[2].Tiles != 9 {
		t.Errorf("tiles summary: %+v", ts)
	}
}
