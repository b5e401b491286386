package main

import (
	"strings"
	"testing"
)

func TestParseProm(t *testing.T) {
	text := `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
guidepost_queue_size{queue="media",state="pending"} 7
guidepost_queue_size{state="active",queue="media"} 2
guidepost_queue_size{queue="media",state="retry"} 1 1700000000000
guidepost_queue_size{queue="media",state="archived"} 40
guidepost_queue_size{queue="media",state="completed"} 300
guidepost_queue_size{queue="other",state="pending"} 99
guidepost_http_request_duration_seconds_bucket{route="/v1/guides/{id}",le="0.1"} 3
weird{label="a \"quoted} value"} 1
`
	s, err := parseProm(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if !s.hasCPU || s.cpu != 12.5 {
		t.Errorf("cpu %v %v", s.hasCPU, s.cpu)
	}
	if !s.hasQueue || s.queue["pending"] != 7 || s.queue["active"] != 2 || s.queue["retry"] != 1 {
		t.Errorf("queue %v", s.queue)
	}
	if d := s.depth(); d != 10 { // archived (dead) and completed jobs are not backlog
		t.Errorf("depth %v, want 10", d)
	}
	if _, l, _, _ := splitSample(`guidepost_queue_size{queue="a\"b}",state="x"} 3`); l["queue"] != `a"b}` || l["state"] != "x" {
		t.Errorf("escaped labels: %v", l)
	}
}
