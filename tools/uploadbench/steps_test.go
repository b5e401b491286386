package main

import (
	"strings"
	"testing"
	"time"
)

const exposition = `# HELP guidepost_direct_upload_step_seconds Time per step.
# TYPE guidepost_direct_upload_step_seconds histogram
guidepost_direct_upload_step_seconds_bucket{step="complete.s3_probe",le="0.05"} 3
guidepost_direct_upload_step_seconds_sum{step="complete.s3_probe"} 0.3
guidepost_direct_upload_step_seconds_count{step="complete.s3_probe"} 4
guidepost_direct_upload_step_seconds_sum{step="create.s3_create"} 0.02
guidepost_direct_upload_step_seconds_count{step="create.s3_create"} 4
guidepost_direct_upload_steps_other{step="x"} 9
process_cpu_seconds_total 12.5
`

// The API's step timers are read from its /metrics, and a level's share
// is the difference of two readings: means per upload, largest first.
func TestServerStepsBetweenTwoReadings(t *testing.T) {
	before := parseSteps(strings.NewReader(exposition))
	if got := before["complete.s3_probe"]; got.n != 4 || got.sum != 300*time.Millisecond {
		t.Fatalf("probe: %+v", got)
	}
	after := parseSteps(strings.NewReader(strings.NewReplacer(
		`_sum{step="complete.s3_probe"} 0.3`, `_sum{step="complete.s3_probe"} 0.5`,
		`_count{step="complete.s3_probe"} 4`, `_count{step="complete.s3_probe"} 6`,
		`_sum{step="create.s3_create"} 0.02`, `_sum{step="create.s3_create"} 0.04`,
		`_count{step="create.s3_create"} 4`, `_count{step="create.s3_create"} 6`).Replace(exposition)))
	d := stepsSince(before, after)
	if len(d) != 2 || d["complete.s3_probe"].meanMs() != 100 || d["create.s3_create"].meanMs() != 10 {
		t.Fatalf("since: %+v", d)
	}
	if got, want := stepLine(d), "complete.s3_probe 100.0, create.s3_create 10.0 (Σ 110.0 ms)"; got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
	if parseSteps(strings.NewReader("process_cpu_seconds_total 1\n")) != nil {
		t.Fatal("no step metric should read as nil")
	}
}
