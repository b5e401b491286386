package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"net/http"
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

// Tiles the API refuses by design (a 400, 404 or 422 problem) do not stop
// the trace: they are captured, counted apart, and the floor answers them
// with the same status, media type and bytes; any other 4xx still stops it.
func TestTileTraceKeepsRefusalsByDesign(t *testing.T) {
	f := newFakeAPI()
	statuses := []int{http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity}
	refused := func(uri string) int {
		if sum := sha256.Sum256([]byte(uri)); sum[1]%4 < 3 && sum[2]%3 == 0 {
			return statuses[sum[1]%4]
		}
		return 0
	}
	f.refuseTile = refused
	srv := f.start(t)
	cfg := testConfig(t, "tiles", srv.URL)
	cfg.Rate = 200
	sum := mustRun(t, cfg)
	ts := sum.Tiles
	n := 0
	for _, p := range newTileTrace(1, tileSessions(int(cfg.Rate*cfg.Duration.Seconds())+1), int(cfg.Rate*cfg.Duration.Seconds())+1).distinct() {
		if refused(p) != 0 {
			n++
		}
	}
	if ts == nil || n == 0 || ts.Refused != n || refused(ts.RefusedTile) == 0 {
		t.Fatalf("%d tiles refused by design, the summary counts %+v", n, ts)
	}

	tiles, err := captureTiles(context.Background(), &cfg, srv.URL, []string{ts.RefusedTile})
	if err != nil {
		t.Fatal(err)
	}
	floor, stop, err := serveTileFloor(t.Context(), tiles)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var answers [2]string
	for i, base := range []string{srv.URL, floor} {
		resp, err := http.Get(base + ts.RefusedTile)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers[i] = fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if answers[0] != answers[1] {
		t.Errorf("the API answered %q, the floor %q", answers[0], answers[1])
	}

	f.mu.Lock()
	f.refuseTile = func(string) int { return http.StatusForbidden }
	f.mu.Unlock()
	if _, err := captureTiles(context.Background(), &cfg, srv.URL, []string{ts.RefusedTile}); err == nil {
		t.Error("a 403 was captured as a refusal by design")
	}
}
