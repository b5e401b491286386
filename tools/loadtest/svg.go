package main

import (
	"fmt"
	"math"
	"strings"
)

// chart is a hand-drawn SVG line chart: no JavaScript, no fonts to fetch,
// so the report opens offline and survives as a CI artifact.
type chart struct {
	Title  string
	YLabel string
	W, H   int
	X0, Y0 float64 // plot area top-left
	PW, PH float64 // plot area size
	Series []svgSeries
	XTicks []svgTick
	YTicks []svgTick
}

type svgSeries struct {
	Name, Color, D string
	LegendX        float64
}

type svgTick struct {
	Pos   float64 // x for XTicks, y for YTicks
	Label string
}

type seriesData struct {
	name, color string
	xs, ys      []float64
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

// newChart lays out series sharing one x (seconds) and one y axis.
func newChart(title, ylabel string, series []seriesData) chart {
	c := chart{Title: title, YLabel: ylabel, W: 860, H: 280, X0: 60, Y0: 46, PW: 770, PH: 200}
	xmax, ymax := 1.0, 0.0
	for _, s := range series {
		for i := range s.xs {
			xmax, ymax = math.Max(xmax, s.xs[i]), math.Max(ymax, s.ys[i])
		}
	}
	ystep := niceStep(ymax / 5)
	ytop := math.Max(ystep*math.Ceil(ymax/ystep), ystep)
	xstep := niceStep(xmax / 8)
	for v := 0.0; v <= xmax+1e-9; v += xstep {
		c.XTicks = append(c.XTicks, svgTick{Pos: c.X0 + v/xmax*c.PW, Label: trimFloat(v) + "s"})
	}
	for v := 0.0; v <= ytop+1e-9; v += ystep {
		c.YTicks = append(c.YTicks, svgTick{Pos: c.Y0 + c.PH - v/ytop*c.PH, Label: trimFloat(v)})
	}
	legendX := c.X0
	for i, s := range series {
		color := s.color
		if color == "" {
			color = palette[i%len(palette)]
		}
		c.Series = append(c.Series, svgSeries{Name: s.name, Color: color, D: c.path(s, xmax, ytop), LegendX: legendX})
		legendX += 18 + 7*float64(len(s.name)) + 16
	}
	return c
}

// path is the SVG path data of one series ("M x y L x y …").
func (c chart) path(s seriesData, xmax, ytop float64) string {
	var b strings.Builder
	for i := range s.xs {
		x := c.X0 + s.xs[i]/xmax*c.PW
		y := c.Y0 + c.PH - math.Min(s.ys[i]/ytop, 1)*c.PH
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&b, "%s%.1f %.1f ", cmd, x, y)
	}
	if b.Len() == 0 {
		return fmt.Sprintf("M%.1f %.1f", c.X0, c.Y0+c.PH) // empty series: a point on the axis
	}
	return strings.TrimSpace(b.String())
}

// niceStep rounds a raw step up to 1, 2 or 5 × 10^k.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-0" {
		return "0"
	}
	return s
}

// reportCharts builds the charts a summary has data for.
func reportCharts(s *Summary) []chart {
	tl := s.Timeline
	xs := make([]float64, len(tl))
	col := func(f func(Bucket) float64) []float64 {
		out := make([]float64, len(tl))
		for i, b := range tl {
			out[i] = f(b)
		}
		return out
	}
	for i, b := range tl {
		xs[i] = float64(b.T) + 0.5
	}
	charts := []chart{
		newChart("Latency over time (per second, by request start)", "ms", latencySeries(tl)),
		newChart("Throughput over time", "per second", throughputSeries(s, xs, col)),
	}
	if c, ok := sampleChart(s, "Media queue depth", "jobs", func(p Sample) float64 { return p.QueueDepth }, s.Queue.Available); ok {
		charts = append(charts, c)
	}
	if c, ok := cpuChart(s); ok {
		charts = append(charts, c)
	}
	return charts
}

// latencySeries skips seconds without requests (the drain after the load):
// a latency of 0 there would be a lie.
func latencySeries(tl []Bucket) []seriesData {
	p50 := seriesData{name: "p50"}
	p95 := seriesData{name: "p95"}
	p99 := seriesData{name: "p99"}
	for _, b := range tl {
		if b.Requests == 0 {
			continue
		}
		x := float64(b.T) + 0.5
		p50.xs, p50.ys = append(p50.xs, x), append(p50.ys, b.P50Ms)
		p95.xs, p95.ys = append(p95.xs, x), append(p95.ys, b.P95Ms)
		p99.xs, p99.ys = append(p99.xs, x), append(p99.ys, b.P99Ms)
	}
	return []seriesData{p50, p95, p99}
}

func throughputSeries(s *Summary, xs []float64, col func(func(Bucket) float64) []float64) []seriesData {
	series := []seriesData{
		{name: "requests", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.Requests) })},
		{name: "ok", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.OK) })},
		{name: "errors", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.Errors) })},
	}
	if s.Load.Model != "closed" { // open loop: the offered load, to compare with what was served
		series = append(series, seriesData{name: "arrivals (offered)", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.Arrivals) })})
	}
	if s.Failures.Rejected > 0 {
		series = append(series, seriesData{name: "rejected (503/429)", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.Rejected) })})
	}
	if s.Uploads != nil {
		series = append(series,
			seriesData{name: "uploads accepted", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.Accepted) })},
			seriesData{name: "photos ready", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.Ready) })})
	}
	if s.Likes != nil {
		series = append(series, seriesData{name: "likes accepted", xs: xs, ys: col(func(b Bucket) float64 { return float64(b.Likes) })})
	}
	return series
}

func sampleChart(s *Summary, title, unit string, f func(Sample) float64, ok bool) (chart, bool) {
	if !ok || len(s.Samples) == 0 {
		return chart{}, false
	}
	xs, ys := make([]float64, len(s.Samples)), make([]float64, len(s.Samples))
	for i, p := range s.Samples {
		xs[i], ys[i] = p.T, f(p)
	}
	return newChart(title, unit, []seriesData{{name: strings.ToLower(title), xs: xs, ys: ys}}), true
}

// cpuChart derives busy cores from CPU-second samples at least half a
// second apart: the extra scrapes at the end of the load come right after a
// periodic one, and a tiny interval would turn counter jitter into spikes.
func cpuChart(s *Summary) (chart, bool) {
	if !s.ServerCPU.Available || len(s.Samples) < 2 {
		return chart{}, false
	}
	var xs, ys []float64
	a := s.Samples[0]
	for _, b := range s.Samples[1:] {
		if dt := b.T - a.T; dt >= 0.5 && b.CPUSeconds >= a.CPUSeconds {
			xs, ys = append(xs, b.T), append(ys, (b.CPUSeconds-a.CPUSeconds)/dt)
			a = b
		}
	}
	title := fmt.Sprintf("Server CPU (cores busy; host has %d)", s.Host.NumCPU)
	return newChart(title, "cores", []seriesData{{name: "server cores busy", xs: xs, ys: ys}}), len(xs) > 0
}
