package main

import (
	"html/template"
	"io"
)

// reportData is what the template sees.
type reportData struct {
	S         *Summary
	Title     string
	Headlines []string
	Charts    []chart
	Kinds     []kindRow
}

type kindRow struct {
	Name string
	K    KindStats
}

func renderReport(w io.Writer, s *Summary) error {
	d := reportData{S: s, Title: s.title(), Headlines: headlines(s), Charts: reportCharts(s)}
	for _, k := range sortedKinds(s.Kinds) {
		d.Kinds = append(d.Kinds, kindRow{k, s.Kinds[k]})
	}
	for _, k := range sortedKinds(s.Background) {
		d.Kinds = append(d.Kinds, kindRow{k + " (background)", s.Background[k]})
	}
	return reportTmpl.Execute(w, d)
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":    func(v float64) float64 { return 100 * v },
	"addf":   func(a, b float64) float64 { return a + b },
	"counts": counts,
	"depths": depths,
}).Parse(reportHTML + chartSVG))

// The page is well-formed XML (self-closed void tags, no named entities)
// so tests, and any XML tool, can parse it.
const reportHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>guidepost-load: {{.Title}}</title>
{{template "style"}}
</head>
<body>
<h1>guidepost-load: {{.Title}}</h1>
<p>Target <code>{{.S.Target}}</code>, started {{.S.StartedAt.UTC.Format "2006-01-02 15:04:05 UTC"}}, commit <code>{{.S.Commit}}</code>.<br/>
Command: <code>{{.S.Command}}</code><br/>
Host: {{.S.Host.NumCPU}} CPUs ({{.S.Host.OS}}/{{.S.Host.Arch}}); generator GOMAXPROCS {{.S.Host.GOMAXPROCS}}, {{.S.Host.GoVersion}}.
Load: {{.S.Load.Model}}{{if .S.Load.Rate}}, {{.S.Load.Rate}} arrivals/s{{end}}{{if .S.Load.VUs}}, {{.S.Load.VUs}} VUs (ramp {{.S.Load.RampS}} s, think {{.S.Load.ThinkS}} s){{end}}, {{.S.Load.DurationS}} s planned, {{.S.Load.ActualS}} s actual.</p>
<ul>{{range .Headlines}}<li>{{.}}</li>{{end}}</ul>
{{range .Charts}}{{template "chart" .}}
{{end}}
<h2>Requests by kind</h2>
<table>
<tr><th>kind</th><th>requests</th><th>req/s</th><th>ok %</th><th>avg ms</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>status codes</th></tr>
{{range .Kinds}}<tr><td>{{.Name}}</td><td>{{.K.Requests}}</td><td>{{printf "%.1f" .K.RatePerS}}</td><td>{{printf "%.2f" (pct .K.SuccessRate)}}</td><td>{{printf "%.1f" .K.Latency.Avg}}</td><td>{{printf "%.1f" .K.Latency.P50}}</td><td>{{printf "%.1f" .K.Latency.P95}}</td><td>{{printf "%.1f" .K.Latency.P99}}</td><td>{{printf "%.1f" .K.Latency.Max}}</td><td>{{counts .K.StatusCodes}}</td></tr>
{{end}}<tr><td><b>total (load)</b></td><td>{{.S.Totals.Requests}}</td><td>{{printf "%.1f" .S.Totals.RatePerS}}</td><td>{{printf "%.2f" (pct .S.Totals.SuccessRate)}}</td><td>{{printf "%.1f" .S.Totals.Latency.Avg}}</td><td>{{printf "%.1f" .S.Totals.Latency.P50}}</td><td>{{printf "%.1f" .S.Totals.Latency.P95}}</td><td>{{printf "%.1f" .S.Totals.Latency.P99}}</td><td>{{printf "%.1f" .S.Totals.Latency.Max}}</td><td>{{counts .S.Totals.StatusCodes}}</td></tr>
</table>
<h2>Failures</h2>
<p>By kind: {{counts .S.Failures.ByKind}}; by status: {{counts .S.Failures.ByStatus}}; shed (503/429): {{.S.Failures.Rejected}}; arrivals dropped by the generator: {{.S.Failures.Dropped}}.</p>
{{with .S.Uploads}}<h2>Uploads: accepted versus completed</h2>
<table>
<tr><th>attempted</th><th>accepted</th><th>accepted/s</th><th>ready</th><th>ready/s</th><th>failed</th><th>not ready</th><th>drained</th><th>drain s</th><th>max queue</th><th>accepted→ready p50 s</th><th>p95 s</th></tr>
<tr><td>{{.Attempted}}</td><td>{{.Accepted}}</td><td>{{.AcceptedPerS}}</td><td>{{.Ready}}</td><td>{{.ReadyPerS}}</td><td>{{.Failed}}</td><td>{{.NotReady}}</td><td>{{.Drained}}</td><td>{{.DrainS}}</td><td>{{.MaxQueueDepth}}</td><td>{{printf "%.2f" .ReadyLatencyS.P50}}</td><td>{{printf "%.2f" .ReadyLatencyS.P95}}</td></tr>
</table>{{end}}
{{with .S.Likes}}<h2>Likes: accepted versus recorded</h2>
<p>{{.Taps}} taps, {{.Accepted}} accepted ({{.AcceptedPerS}}/s), {{.Rejected}} rejected, {{.Unknown}} with unknown outcome. Lost {{.Lost}}, duplicated {{.Duplicated}}.{{if .ReadError}} Read-back failed: {{.ReadError}}{{end}}</p>
<table>
<tr><th>guide</th><th>baseline</th><th>expected min</th><th>expected max</th><th>read back</th><th>lost</th><th>duplicated</th></tr>
{{range .Guides}}<tr><td>{{.ID}}</td><td>{{.Baseline}}</td><td>{{.ExpectedMin}}</td><td>{{.ExpectedMax}}</td><td>{{.Actual}}</td><td>{{.Lost}}</td><td>{{.Duplicated}}</td></tr>
{{end}}</table>{{end}}
{{with .S.Steps}}<h2>Steps on {{.On}}: ceiling {{.Ceiling}} req/s</h2>
<p>{{.Rule}}.{{if .StoppedEarly}} The doubling stopped at the first failing step.{{end}}{{if .Capped}} No step failed: the ceiling is above the last rate tried.{{end}}</p>
<table>
<tr><th>step</th><th>target/s</th><th>arrivals</th><th>dropped</th><th>served</th><th>served/s</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>held</th></tr>
{{range .Steps}}<tr><td>{{.Index}}{{if .Refine}} (refining){{end}}</td><td>{{.TargetRate}}</td><td>{{.Arrivals}}</td><td>{{.Dropped}}</td><td>{{.Served}}</td><td>{{printf "%.1f" .ServedPerS}}</td><td>{{printf "%.1f" .P50Ms}}</td><td>{{printf "%.1f" .P95Ms}}</td><td>{{printf "%.1f" .P99Ms}}</td><td>{{.Held}}</td></tr>
{{end}}</table>{{end}}
{{with .S.ColdStart}}<h2>Cold start</h2>
<p>{{.Binary}} serve on {{.Addr}}: ready after {{.ReadyAfterS}} s. First minute: {{.FirstMinute.Served}} served of {{.FirstMinute.Arrivals}} arrivals ({{printf "%.1f" .FirstMinute.ServedPerS}}/s against {{.TargetRate}}/s), {{.FirstMinute.Rejected}} rejected with 503, failures: {{counts .FirstMinute.Failures}}, p95 {{printf "%.1f" .FirstMinute.Latency.P95}} ms.{{with .After}} After the first minute: {{printf "%.1f" .ServedPerS}}/s served, {{.Rejected}} rejected.{{end}}{{with .CacheOff}} The same load on a fresh server with the cache off, just before: p95 {{printf "%.1f" .Latency.P95}} ms, p99 {{printf "%.1f" .Latency.P99}} ms, {{.Rejected}} rejected with 503, failures: {{counts .Failures}}; cold p95 ÷ cache-off p95 = {{.P95Ratio}}.{{end}}</p>{{end}}
<h2>Setup and server</h2>
<p>{{.S.Setup.Users}} guest users, {{.S.Setup.GuidesSeeded}} guides seeded, {{.S.Setup.GuidesFound}} discovered, read pool {{.S.Setup.GuidePool}}, hot guides {{.S.Setup.HotGuides}}, photos {{.S.Setup.PhotoBytes}} bytes; setup took {{.S.Setup.Seconds}} s ({{.S.Setup.Requests}} requests, {{.S.Setup.FailedRequests}} failed).
Server CPU: {{if .S.ServerCPU.Available}}{{.S.ServerCPU.LoadSeconds}} s during the load ({{.S.ServerCPU.LoadCores}} cores), {{.S.ServerCPU.TotalSeconds}} s with drain{{else}}unknown{{end}}. Generator CPU: {{.S.Generator.Seconds}} s ({{.S.Generator.Cores}} cores).
CPU during the load, in cores, server / worker / generator / others: {{.S.CPU.Label}} (– a paused worker, ? a part counted in others). Worker: {{.S.Worker.State}}{{if ge .S.Worker.BacklogAtStart 0.0}}, {{.S.Worker.BacklogAtStart}} photos queued at the start{{end}}{{with .S.Worker.Discarded}}, {{.}} queued photos discarded after the run{{end}}.
Max media queue depth: {{if .S.Queue.Available}}{{.S.Queue.MaxDepth}}{{with .S.Queue.MaxByState}} ({{depths .}}){{end}}{{else}}unknown{{end}}.</p>
{{with .S.ErrorSamples}}<h2>Error samples</h2><ul>{{range .}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{with .S.Notes}}<h2>Notes</h2><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body>
</html>
`

// chartSVG draws a chart (svg.go) inline, and styles the page: the
// per-run report and the bench's both use it.
const chartSVG = `{{define "style"}}<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
code { background: #f3f3f3; padding: 1px 4px; }
.axis { stroke: #888; stroke-width: 1; }
.grid { stroke: #eee; stroke-width: 1; }
svg text { font-size: 11px; fill: #444; }
</style>{{end}}{{define "chart"}}<h2>{{.Title}}</h2>
<svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img">
{{$c := .}}{{range .YTicks}}<line class="grid" x1="{{$c.X0}}" x2="{{printf "%.1f" (addf $c.X0 $c.PW)}}" y1="{{printf "%.1f" .Pos}}" y2="{{printf "%.1f" .Pos}}"/><text x="{{printf "%.1f" (addf $c.X0 -6)}}" y="{{printf "%.1f" (addf .Pos 4)}}" text-anchor="end">{{.Label}}</text>
{{end}}{{range .XTicks}}<text x="{{printf "%.1f" .Pos}}" y="{{printf "%.1f" (addf (addf $c.Y0 $c.PH) 16)}}" text-anchor="middle">{{.Label}}</text>
{{end}}<line class="axis" x1="{{$c.X0}}" y1="{{printf "%.1f" (addf $c.Y0 $c.PH)}}" x2="{{printf "%.1f" (addf $c.X0 $c.PW)}}" y2="{{printf "%.1f" (addf $c.Y0 $c.PH)}}"/>
<line class="axis" x1="{{$c.X0}}" y1="{{$c.Y0}}" x2="{{$c.X0}}" y2="{{printf "%.1f" (addf $c.Y0 $c.PH)}}"/>
<text x="12" y="{{printf "%.1f" (addf $c.Y0 -10)}}">{{$c.YLabel}}</text>
{{range .Series}}<path d="{{.D}}" fill="none" stroke="{{.Color}}" stroke-width="1.5"/>
<rect x="{{printf "%.1f" .LegendX}}" y="6" width="12" height="12" fill="{{.Color}}"/><text x="{{printf "%.1f" (addf .LegendX 16)}}" y="16">{{.Name}}</text>
{{end}}</svg>{{end}}`
