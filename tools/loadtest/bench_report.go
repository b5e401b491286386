package main

import (
	"html/template"
	"io"
	"os"
	"path/filepath"
)

// benchPage is what the bench's own report shows: the summary table, and
// the scale run's rows (when one was written) as a table and a chart.
type benchPage struct {
	Rep   *benchReport
	Lines []benchLine
	Scale *ScaleReport
	Chart *chart
}

func renderBenchReport(w io.Writer, rep *benchReport, scale *ScaleReport) error {
	p := benchPage{Rep: rep, Lines: rep.Table, Scale: scale}
	if scale != nil {
		if c, ok := scaleChart(scale.Rows); ok {
			p.Chart = &c
		}
	}
	return benchTmpl.Execute(w, p)
}

// writeBenchReport writes <out>/<stamp>-bench/report.html.
func writeBenchReport(c *Config, rep *benchReport) (string, error) {
	scale, err := readScaleReport(scaleJSONPath(c))
	if err != nil {
		return "", err
	}
	dir := filepath.Join(c.Out, rep.StartedAt.Format("20060102-150405")+"-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "report.html")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := renderBenchReport(f, rep, scale); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// scaleJSONPath is where `loadtest scale` writes its rows, and where the
// bench report looks for them.
func scaleJSONPath(c *Config) string {
	if c.ScaleJSON != "" {
		return c.ScaleJSON
	}
	return filepath.Join(filepath.Dir(c.Benchmarks), "BENCHMARKS-scale.json")
}

var benchTmpl = template.Must(template.New("bench").Funcs(template.FuncMap{
	"addf": func(a, b float64) float64 { return a + b }, "ratio": ratioText, "mib": mib, "guides": guidesLabel,
}).Parse(benchHTML + chartSVG))

// Well-formed XML, like the per-run report, so a test can parse it.
const benchHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>guidepost-load: make bench</title>
{{template "style"}}
<style>td { text-align: left; }</style>
</head>
<body>
<h1>make bench</h1>
<p>Commit <code>{{.Rep.Commit}}</code>, started {{.Rep.StartedAt.UTC.Format "2006-01-02 15:04:05 UTC"}}, took {{.Rep.TookS}} s on {{.Rep.Host.NumCPU}} CPUs{{with .Rep.LoadAvg}}; load average at the end {{.}}{{end}}.<br/>
Command: <code>{{.Rep.Command}}</code></p>
<h2>Each scenario beside its floor</h2>
<table>
<tr><th>scenario</th><th>figure</th><th>floor, same run</th><th>ratio</th></tr>
{{range .Lines}}<tr><td>{{.Scenario}}</td><td>{{.Figure}}</td><td>{{.Floor}}</td><td>{{ratio .Ratio}}</td></tr>
{{end}}</table>
{{with .Scale}}<h2>Scale</h2>
<p>From <code>loadtest scale</code>, commit <code>{{.Commit}}</code>, started {{.StartedAt.UTC.Format "2006-01-02 15:04 UTC"}}{{with .LoadAvg}}, load average {{.}}{{end}}.</p>
<table>
<tr><th>guides</th><th>seed s</th><th>DB size</th><th>API RSS, warm</th><th>nearby p95 ms warm / cold</th><th>viewport</th><th>tiles</th><th>like storm p95 ms, recorded/s</th><th>steps ceiling</th></tr>
{{range .Rows}}<tr><td>{{.Label}} ({{.Guides}})</td><td>{{.SeedS}}</td><td>{{mib .DBBytes}}</td><td>{{mib .RSSBytes}}</td><td>{{printf "%.1f / %.1f" .Warm.Nearby .Cold.Nearby}}</td><td>{{printf "%.1f / %.1f" .Warm.Viewport .Cold.Viewport}}</td><td>{{printf "%.1f / %.1f" .Warm.Tiles .Cold.Tiles}}</td><td>{{printf "%.1f, %.0f" .LikesP95 .LikesRecordedPerS}}</td><td>{{.Ceiling}}</td></tr>
{{end}}</table>{{end}}
{{with .Chart}}{{template "chart" .}}{{else}}<p>No scale run found (<code>loadtest scale</code> writes BENCHMARKS-scale.json): no chart of p95 against the data size.</p>{{end}}
</body>
</html>
`
