package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

// writeOutputs writes <out>/<stamp>-<scenario>/{summary.json,report.html}
// and appends the BENCHMARKS.md row.
func writeOutputs(cfg *Config, s *Summary) error {
	if s.Commit == "" {
		s.Commit = gitCommit()
	}
	if cfg.NoWrite {
		return nil
	}
	dir := filepath.Join(cfg.Out, s.StartedAt.Format("20060102-150405")+"-"+s.slug())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "summary.json"), s); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	if err := renderReport(f, s); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if cfg.Benchmarks != "" {
		if err := appendBenchmarkRow(cfg.Benchmarks, s); err != nil {
			return err
		}
	}
	cfg.Log.Info("outputs written", "dir", dir, "benchmarks", cfg.Benchmarks)
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// printSummary prints the headline numbers for a human at the terminal.
func printSummary(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "\n%s: %d requests, %.1f req/s, %.2f%% ok, p95 %.1f ms (host %d cores, generator GOMAXPROCS %d)\n",
		s.title(), s.Totals.Requests, s.Totals.RatePerS, 100*s.Totals.SuccessRate, s.Totals.Latency.P95,
		s.Host.NumCPU, s.Host.GOMAXPROCS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\treqs\treq/s\tok%\tavg\tp50\tp95\tp99\tmax ms\t")
	for _, k := range sortedKinds(s.Kinds) {
		ks := s.Kinds[k]
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", k, ks.Requests, ks.RatePerS,
			100*ks.SuccessRate, ks.Latency.Avg, ks.Latency.P50, ks.Latency.P95, ks.Latency.P99, ks.Latency.Max)
	}
	tw.Flush()
	for _, line := range headlines(s) {
		fmt.Fprintln(w, line)
	}
}

// headlines are the scenario-specific results, one line each.
func headlines(s *Summary) []string {
	var out []string
	if len(s.Failures.ByKind) > 0 {
		out = append(out, fmt.Sprintf("failures: by kind %s; by status %s", counts(s.Failures.ByKind), counts(s.Failures.ByStatus)))
	}
	if u := s.Uploads; u != nil {
		out = append(out, fmt.Sprintf("uploads: %d attempted, %d accepted (%.2f/s), %d ready (%.2f/s), %d failed, %d not ready; drained=%v in %.1fs; max queue %.0f",
			u.Attempted, u.Accepted, u.AcceptedPerS, u.Ready, u.ReadyPerS, u.Failed, u.NotReady, u.Drained, u.DrainS, u.MaxQueueDepth))
	}
	if l := s.Likes; l != nil {
		out = append(out, fmt.Sprintf("likes: %d taps, %d accepted (%.1f/s); expected %d, recorded %d: lost %d, duplicated %d",
			l.Taps, l.Accepted, l.AcceptedPerS, l.Expected, l.Recorded, l.Lost, l.Duplicated))
	}
	if st := s.Steps; st != nil {
		out = append(out, fmt.Sprintf("steps on %s: ceiling %s req/s (first failed: %g); steps %s", st.On, st.Ceiling(), st.FirstFailedRate, st.Rates()))
	}
	if t := s.Tiles; t != nil {
		out = append(out, fmt.Sprintf("tiles: %d sessions, %d distinct tiles (warmed in %.1fs); 304 %.1f %%, 204 %.1f %%; p95 %.1f ms, floor %.1f ms (×%.2f); largest tile %d B gzipped",
			t.Sessions, t.DistinctTiles, t.WarmS, 100*t.Share304, 100*t.Share204, t.P95Ms, t.Floor.P95, t.P95Ratio, t.MaxGzipBytes))
		if t.Refused > 0 {
			out = append(out, fmt.Sprintf("tiles refused by design (4xx problem, replayed as such by the floor): %d of %d distinct, e.g. %s",
				t.Refused, t.DistinctTiles, t.RefusedTile))
		}
		for _, z := range t.Seoul {
			out = append(out, fmt.Sprintf("tiles around Seoul City Hall, zoom %d: %d tiles, at most %d B (%d B gzipped, median %d B)",
				z.Zoom, z.Tiles, z.MaxBytes, z.MaxGzip, z.MedianGzip))
		}
	}
	if c := s.ColdStart; c != nil {
		out = append(out, fmt.Sprintf("coldstart: ready after %.2fs; first minute served %.1f/s of %.0f, %d rejected (503)",
			c.ReadyAfterS, c.FirstMinute.ServedPerS, c.TargetRate, c.FirstMinute.Rejected))
	}
	if f := s.ColdStart; f != nil && f.CacheOff != nil {
		out = append(out, fmt.Sprintf("coldstart: p95 %.1f ms against %.1f ms with the cache off (%.2f×); cache off: %d rejected (503)",
			s.Totals.Latency.P95, f.CacheOff.Latency.P95, f.CacheOff.P95Ratio, f.CacheOff.Rejected))
	}
	if a := s.Abuse; a != nil {
		if a.Mixed {
			verdict := map[bool]string{true: "PASS", false: "FAIL"}[a.GoalMet]
			out = append(out, fmt.Sprintf("abuse mixed %s: p95 %.1f → %.1f ms (×%.2f), errors %.2f %% → %.2f %%; attacker: %s", verdict,
				a.Baseline.Latency.P95, a.Attacked.Latency.P95, a.P95Ratio, 100*a.Baseline.ErrorRate, 100*a.Attacked.ErrorRate, tallies(a.Attacker.Answers)))
		}
		out = append(out, doorTable(a.Doors)...)
	}
	if s.ServerCPU.Available {
		out = append(out, fmt.Sprintf("server CPU: %.1f s during load (%.2f cores); generator %.1f s (%.2f cores)",
			s.ServerCPU.LoadSeconds, s.ServerCPU.LoadCores, s.Generator.Seconds, s.Generator.Cores))
	}
	out = append(out, "CPU cores during the load, server / worker / generator / others: "+s.CPU.Label()+"; worker "+workerLabel(s))
	return append(out, s.Notes...)
}

func sortedKinds(m map[string]KindStats) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// counts writes a tally for people: "503 × 11, timeout × 2", largest
// first; status "0" is a request that got no HTTP answer; "none" for an
// empty tally.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := k
		if k == "0" {
			name = "no answer"
		}
		parts[i] = fmt.Sprintf("%s × %d", name, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// depths writes queue depths by state: "pending 10, active 2".
func depths(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.0f", k, m[k])
	}
	return strings.Join(parts, ", ")
}
