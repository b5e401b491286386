package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// ScaleRow is one data size of `loadtest scale`: what issue 24 asks of
// each, from 100 k to 10 M guides.
type ScaleRow struct {
	Label    string  `json:"label"` // as given: 100k, 1m, 10m
	Guides   int64   `json:"guides"`
	SeedS    float64 `json:"seed_s"` // measured where the seed ran (-scale-seed-times); 0: not given
	DBBytes  int64   `json:"db_bytes"`
	RSSBytes int64   `json:"rss_bytes"` // VmRSS of `serve` with a warm cache
	Warm     MapP95  `json:"warm"`
	Cold     MapP95  `json:"cold"` // a fresh process, its Redis emptied
	// The like storm: 1,000 users double-tapping.
	LikesP95          float64  `json:"likes_p95_ms"`
	LikesRecordedPerS float64  `json:"likes_recorded_per_s"`
	Ceiling           string   `json:"steps_ceiling"` // nearby, req/s
	Errors            []string `json:"errors,omitempty"`
}

// MapP95 are the map reads' p95, in ms.
type MapP95 struct {
	Nearby   float64 `json:"nearby_p95_ms"`
	Viewport float64 `json:"viewport_p95_ms"`
	Tiles    float64 `json:"tiles_p95_ms"`
}

// ScaleReport is the scale run's JSON, which the bench report charts.
type ScaleReport struct {
	StartedAt time.Time    `json:"started_at"`
	Commit    string       `json:"commit"`
	Command   string       `json:"command"`
	Host      Host         `json:"host"`
	LoadAvg   string       `json:"load_avg,omitempty"` // /proc/loadavg at the end
	Rows      []ScaleRow   `json:"rows"`
	Rounds    []ScaleRound `json:"rounds,omitempty"`
}

// readScaleReport reads a scale run's JSON; a missing file is no report.
func readScaleReport(path string) (*ScaleReport, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || path == "" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r ScaleReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// scaleMarkdown is the "Scale" table of BENCHMARKS.md, and a last line
// with the largest size's latencies over the one before it (the issue's
// goal: within 1.3× from 1 M to 10 M).
func scaleMarkdown(rows []ScaleRow) string {
	var b strings.Builder
	b.WriteString("| guides | seed | DB size | API RSS, warm | nearby p95 ms warm / cold | viewport p95 ms warm / cold | tile p95 ms warm / cold | like storm p95 ms, recorded/s | steps ceiling req/s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		seed := "–"
		if r.SeedS > 0 {
			seed = time.Duration(r.SeedS * float64(time.Second)).Round(time.Second / 10).String()
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f, %.0f | %s |\n",
			scaleLabel(r), seed, mib(r.DBBytes), mib(r.RSSBytes), r.Warm.Nearby, r.Cold.Nearby,
			r.Warm.Viewport, r.Cold.Viewport, r.Warm.Tiles, r.Cold.Tiles, r.LikesP95, r.LikesRecordedPerS, cmpOr(r.Ceiling, "–"))
	}
	if n := len(rows); n >= 2 {
		a, z := rows[n-2], rows[n-1]
		q := func(x, y float64) string {
			if y <= 0 {
				return "–"
			}
			return fmt.Sprintf("%.2f×", x/y)
		}
		fmt.Fprintf(&b, "| %s ÷ %s | | %s | %s | %s / %s | %s / %s | %s / %s | %s | |\n",
			scaleLabel(z), scaleLabel(a), q(float64(z.DBBytes), float64(a.DBBytes)), q(float64(z.RSSBytes), float64(a.RSSBytes)),
			q(z.Warm.Nearby, a.Warm.Nearby), q(z.Cold.Nearby, a.Cold.Nearby), q(z.Warm.Viewport, a.Warm.Viewport),
			q(z.Cold.Viewport, a.Cold.Viewport), q(z.Warm.Tiles, a.Warm.Tiles), q(z.Cold.Tiles, a.Cold.Tiles), q(z.LikesP95, a.LikesP95))
	}
	return b.String()
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func mib(n int64) string {
	if n <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}

// scaleLabel is a size as the run was told it (100k), the guides counted
// in the JSON: the like storm adds a few guides of its own to each size.
func scaleLabel(r ScaleRow) string { return cmpOr(r.Label, guidesLabel(r.Guides)) }

// guidesLabel writes 100000 as 100k and 10000000 as 10M.
func guidesLabel(n int64) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM", n/1e6)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dk", n/1e3)
	}
	return fmt.Sprint(n)
}

// scaleChart draws each p95 against the data size, the sizes on a log
// scale (x = log10 guides), one tick per size run.
func scaleChart(rows []ScaleRow) (chart, bool) {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b ScaleRow) int { return int(a.Guides - b.Guides) })
	var xs []float64
	for _, r := range rows {
		if r.Guides > 0 {
			xs = append(xs, math.Log10(float64(r.Guides)))
		}
	}
	if len(xs) == 0 || len(xs) != len(rows) {
		return chart{}, false
	}
	col := func(f func(ScaleRow) float64) []float64 {
		out := make([]float64, len(rows))
		for i, r := range rows {
			out[i] = f(r)
		}
		return out
	}
	series := []seriesData{
		{name: "nearby warm", xs: xs, ys: col(func(r ScaleRow) float64 { return r.Warm.Nearby })},
		{name: "viewport warm", xs: xs, ys: col(func(r ScaleRow) float64 { return r.Warm.Viewport })},
		{name: "tiles warm", xs: xs, ys: col(func(r ScaleRow) float64 { return r.Warm.Tiles })},
		{name: "nearby cold", xs: xs, ys: col(func(r ScaleRow) float64 { return r.Cold.Nearby })},
		{name: "viewport cold", xs: xs, ys: col(func(r ScaleRow) float64 { return r.Cold.Viewport })},
		{name: "tiles cold", xs: xs, ys: col(func(r ScaleRow) float64 { return r.Cold.Tiles })},
		{name: "like storm", xs: xs, ys: col(func(r ScaleRow) float64 { return r.LikesP95 })},
	}
	c := newChart("p95 against the data size (guides, log scale)", "ms", series)
	xmax := math.Max(1, slices.Max(xs))
	c.XTicks = nil
	for i, r := range rows {
		c.XTicks = append(c.XTicks, svgTick{Pos: c.X0 + xs[i]/xmax*c.PW, Label: guidesLabel(r.Guides)})
	}
	return c, true
}
