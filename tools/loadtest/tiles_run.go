package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// TileSummary is what the tiles scenario exists to measure: the warm p95
// beside a floor (a gin server answering the same trace with the same
// bytes and ETags from a map, measured in the same run), the share of
// revalidations answered 304, and the size of tiles.
type TileSummary struct {
	Sessions      int     `json:"sessions"`
	DistinctTiles int     `json:"distinct_tiles"`
	WarmS         float64 `json:"warm_s"` // fetching every tile of the trace once before the clock
	Share304      float64 `json:"share_304"`
	Share204      float64 `json:"share_204"`
	P95Ms         float64 `json:"p95_ms"`
	P50Ms         float64 `json:"p50_ms"`
	Floor         Latency `json:"floor_latency_ms"`
	FloorShare304 float64 `json:"floor_share_304"`
	P95Ratio      float64 `json:"p95_ratio"` // API p95 ÷ floor p95
	// MaxGzipBytes is the largest tile of the trace, gzipped.
	MaxGzipBytes int    `json:"max_gzip_bytes"`
	MaxGzipTile  string `json:"max_gzip_tile"`
	// Refused is how many distinct tiles of the trace the API refused by
	// design (a 4xx problem, see refusedByDesign), RefusedTile one of them:
	// the floor answers them with the same status and bytes.
	Refused     int         `json:"refused_tiles"`
	RefusedTile string      `json:"refused_tile,omitempty"`
	Seoul       []TileSizes `json:"seoul"` // the 3×3 tiles around City Hall at zooms 6, 10, 14
}

// TileSizes describes the tiles of one zoom.
type TileSizes struct {
	Zoom       int `json:"zoom"`
	Tiles      int `json:"tiles"`
	MaxBytes   int `json:"max_bytes"`
	MaxGzip    int `json:"max_gzip_bytes"`
	MedianGzip int `json:"median_gzip_bytes"`
}

// tileSessions is how many map screens replay n arrivals: 300 at most
// (at 500 req/s for 30 s each gestures every few seconds, as people do),
// fewer in a short run so that each still asks for about 50 tiles.
func tileSessions(n int) int { return min(max(n/50, 1), 300) }

// capturedTile is one tile as the API answered it before the clock.
type capturedTile struct {
	status int
	etag   string
	ctype  string // of a refusal: the problem's media type
	body   []byte
}

// refusedByDesign is an answer the API gives on purpose to a tile it will
// not cut (a viewport over a bound, a tag it does not know): a 400, 404 or
// 422 problem. The trace keeps it, the floor replays it, the summary
// counts it; it says nothing about the server's health, unlike a 503.
func refusedByDesign(status int, ctype string) bool {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusUnprocessableEntity:
		return strings.HasPrefix(ctype, "application/problem+json")
	}
	return false
}

// runTiles warms the API with every tile of the trace, replays the trace
// against it, then against the floor, and reports both.
func runTiles(ctx context.Context, cfg *Config, d *scenarioDef, base string, fx *fixture, setup SetupInfo) (Summary, error) {
	n := int(cfg.Rate*cfg.Duration.Seconds()) + 1
	sessions := tileSessions(n)
	trace := newTileTrace(1, sessions, n)
	replay := *d
	replay.build = trace.action
	if cfg.tilesCold {
		return measure(ctx, cfg, &replay, base, fx, nil, setup)
	}
	start := time.Now()
	tiles, err := captureTiles(ctx, cfg, base, trace.distinct())
	if err != nil {
		return Summary{}, err
	}
	warm := time.Since(start)
	ts := &TileSummary{Sessions: sessions, DistinctTiles: len(tiles), WarmS: round(warm.Seconds(), 1)}
	ts.countRefused(tiles)
	cfg.Log.Info("tiles: warmed", "tiles", len(tiles), "refused", ts.Refused, "took", warm.Round(time.Millisecond))
	sum, err := measure(ctx, cfg, &replay, base, fx, nil, setup)
	if err != nil {
		return sum, err
	}
	floor, stop, err := serveTileFloor(ctx, tiles)
	if err != nil {
		return sum, err
	}
	defer stop()
	trace.reset()
	cfg.Log.Info("tiles: the same trace against the floor", "floor", floor)
	floorSum, err := measure(ctx, cfg, &replay, floor, fx, nil, setup)
	if err != nil {
		return sum, fmt.Errorf("tiles: floor: %w", err)
	}
	ts.fill(sum, floorSum, tiles)
	if ts.Seoul, err = seoulSizes(ctx, cfg, base); err != nil {
		return sum, err
	}
	sum.Tiles = ts
	return sum, nil
}

// countRefused counts the tiles refused by design, naming the first in
// path order so that the same trace names the same tile.
func (ts *TileSummary) countRefused(tiles map[string]capturedTile) {
	for path, t := range tiles {
		if refusedByDesign(t.status, t.ctype) {
			ts.Refused++
			if ts.RefusedTile == "" || path < ts.RefusedTile {
				ts.RefusedTile = path
			}
		}
	}
}

func (ts *TileSummary) fill(api, floor Summary, tiles map[string]capturedTile) {
	k, f := api.Kinds["tile"], floor.Kinds["tile"]
	if k.Requests > 0 {
		ts.Share304 = round(float64(k.StatusCodes["304"])/float64(k.Requests), 4)
		ts.Share204 = round(float64(k.StatusCodes["204"])/float64(k.Requests), 4)
	}
	if f.Requests > 0 {
		ts.FloorShare304 = round(float64(f.StatusCodes["304"])/float64(f.Requests), 4)
	}
	ts.P95Ms, ts.P50Ms, ts.Floor = k.Latency.P95, k.Latency.P50, f.Latency
	if f.Latency.P95 > 0 {
		ts.P95Ratio = round(k.Latency.P95/f.Latency.P95, 2)
	}
	for path, t := range tiles {
		if t.status != http.StatusOK {
			continue // a refusal's problem is not a tile
		}
		if g := gzipLen(t.body); g > ts.MaxGzipBytes {
			ts.MaxGzipBytes, ts.MaxGzipTile = g, path
		}
	}
}

// captureTiles fetches every path once (8 at a time), as the server would
// see a first visit, and keeps the answers for the floor, refusals by
// design included; any other failure stops the run.
func captureTiles(ctx context.Context, cfg *Config, base string, paths []string) (map[string]capturedTile, error) {
	hc := newHTTPClient(cfg.Timeout, 8)
	defer hc.CloseIdleConnections()
	out := make(map[string]capturedTile, len(paths))
	var mu sync.Mutex
	var errs []error
	work := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for p := range work {
				t, err := fetchTileRetrying(ctx, hc, base+p)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("tiles: warm %s: %w", p, err))
				}
				out[p] = t
				mu.Unlock()
			}
		})
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}

// fetchTileRetrying is fetchTile tried three times a second apart: the
// first cut of a low-zoom tile on a busy machine may pass the database's
// statement timeout (503); a later try, once the others are done, passes.
func fetchTileRetrying(ctx context.Context, hc *http.Client, url string) (capturedTile, error) {
	var t capturedTile
	var err error
	for range 3 {
		if t, err = fetchTile(ctx, hc, url); err == nil || t.status != http.StatusServiceUnavailable || !sleepCtx(ctx, time.Second) {
			return t, err
		}
	}
	return t, err
}

func fetchTile(ctx context.Context, hc *http.Client, url string) (capturedTile, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return capturedTile{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return capturedTile{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	t := capturedTile{status: resp.StatusCode, etag: resp.Header.Get("ETag"), body: body}
	switch {
	case err != nil, resp.StatusCode == http.StatusOK, resp.StatusCode == http.StatusNoContent:
	case refusedByDesign(resp.StatusCode, resp.Header.Get("Content-Type")):
		t.ctype = resp.Header.Get("Content-Type")
	default:
		err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return t, err
}

// tileFloorServeArg makes this binary the tiles' floor (see serveChild).
// The floor runs in a process of its own, as the API does, so that each
// answer pays the same hand-over between processes: a floor inside the
// generator's process answered its median tile in 33 µs against the
// API's 111 µs at 500 req/s, a gap of wake-ups, not of work.
const tileFloorServeArg = "tile-floor-serve"

// floorTile is a captured tile as the floor process reads it.
type floorTile struct {
	Status int    `json:"status"`
	ETag   string `json:"etag"`
	CType  string `json:"ctype"`
	Body   []byte `json:"body"`
}

// serveTileFloor answers the captured tiles from a map with gin, in a
// child process: the same bytes, ETags and 304s as the API, with nothing
// to compute.
func serveTileFloor(ctx context.Context, tiles map[string]capturedTile) (string, func(), error) {
	f, err := os.CreateTemp("", "guidepost-tile-floor-*.json")
	if err != nil {
		return "", nil, err
	}
	spec := make(map[string]floorTile, len(tiles))
	for path, t := range tiles {
		spec[path] = floorTile{Status: t.status, ETag: t.etag, CType: t.ctype, Body: t.body}
	}
	err = errors.Join(json.NewEncoder(f).Encode(spec), f.Close())
	if err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	srv, err := startChildServer(ctx, tileFloorServeArg, f.Name())
	if err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	return srv.base, func() { srv.stop(); os.Remove(f.Name()) }, nil
}

// serveTileFloorFile is the child: the tiles of the file at path, on addr.
func serveTileFloorFile(addr, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tiles map[string]floorTile
	if err := json.Unmarshal(b, &tiles); err != nil {
		return err
	}
	return http.ListenAndServe(addr, tileFloorHandler(tiles))
}

func tileFloorHandler(tiles map[string]floorTile) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.GET("/v1/tiles/:z/:x/:y", func(c *gin.Context) {
		t, ok := tiles[c.Request.URL.RequestURI()]
		switch {
		case !ok:
			c.Status(http.StatusNotFound)
		case t.ETag != "" && c.GetHeader("If-None-Match") == t.ETag:
			c.Header("ETag", t.ETag)
			c.Header("Cache-Control", "public, no-cache")
			c.Status(http.StatusNotModified)
		case t.CType != "": // refused by design: the same problem
			if t.ETag != "" {
				c.Header("ETag", t.ETag)
			}
			c.Data(t.Status, t.CType, t.Body)
		default:
			c.Header("ETag", t.ETag)
			c.Header("Cache-Control", "public, no-cache")
			if t.Status == http.StatusNoContent {
				c.Status(http.StatusNoContent)
				return
			}
			c.Data(http.StatusOK, "application/vnd.mapbox-vector-tile", t.Body)
		}
	})
	return r
}

// seoulSizes measures the 3×3 tiles around Seoul City Hall at zooms 6, 10
// and 14, raw and gzipped.
func seoulSizes(ctx context.Context, cfg *Config, base string) ([]TileSizes, error) {
	hc := newHTTPClient(cfg.Timeout, 2)
	defer hc.CloseIdleConnections()
	var out []TileSizes
	for _, z := range []int{6, 10, 14} {
		n := math.Exp2(float64(z))
		cx := int((126.9780 + 180) / 360 * n)
		phi := 37.5665 * math.Pi / 180
		cy := int((1 - math.Log(math.Tan(phi)+1/math.Cos(phi))/math.Pi) / 2 * n)
		ts := TileSizes{Zoom: z}
		var gz []int
		for y := cy - 1; y <= cy+1; y++ {
			for x := cx - 1; x <= cx+1; x++ {
				t, err := fetchTile(ctx, hc, fmt.Sprintf("%s/v1/tiles/%d/%d/%d.mvt", base, z, x, y))
				if err != nil {
					return nil, err
				}
				if t.ctype != "" {
					continue // refused by design: no tile to measure
				}
				ts.Tiles++
				ts.MaxBytes = max(ts.MaxBytes, len(t.body))
				gz = append(gz, gzipLen(t.body))
			}
		}
		slices.Sort(gz)
		if len(gz) > 0 {
			ts.MaxGzip, ts.MedianGzip = gz[len(gz)-1], gz[len(gz)/2]
		}
		out = append(out, ts)
	}
	return out, nil
}

func gzipLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Len()
}
