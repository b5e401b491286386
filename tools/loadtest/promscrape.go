package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// promSnapshot is what the tool reads from the server's /metrics: the
// media queue by state and the server process's CPU seconds.
type promSnapshot struct {
	cpu      float64
	hasCPU   bool
	queue    map[string]float64 // state → jobs, for queue="media"
	hasQueue bool
}

// backlogStates are the jobs not done yet; archived (dead) and completed
// (kept for retention) jobs are not backlog.
var backlogStates = []string{"pending", "active", "retry", "scheduled"}

// depth is the media backlog.
func (s promSnapshot) depth() float64 {
	var d float64
	for _, state := range backlogStates {
		d += s.queue[state]
	}
	return d
}

// scrapeMetrics fetches /metrics; it is not recorded as load (it is ours).
func scrapeMetrics(ctx context.Context, hc *http.Client, base string) (promSnapshot, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return promSnapshot{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return promSnapshot{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return promSnapshot{}, fmt.Errorf("/metrics: HTTP %d", resp.StatusCode)
	}
	return parseProm(resp.Body)
}

// parseProm reads the Prometheus text format, keeping only the two series
// the tool needs; a hand parser avoids pulling expfmt into the generator.
func parseProm(r io.Reader) (promSnapshot, error) {
	s := promSnapshot{queue: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, labels, value, ok := splitSample(line)
		if !ok {
			continue
		}
		switch name {
		case "process_cpu_seconds_total":
			s.cpu, s.hasCPU = value, true
		case "guidepost_queue_size":
			if labels["queue"] == "media" {
				s.queue[labels["state"]] += value
				s.hasQueue = true
			}
		}
	}
	return s, sc.Err()
}

// splitSample splits `name{a="b",c="d"} value [timestamp]`.
func splitSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	rest := line
	if i := strings.IndexAny(line, "{ "); i >= 0 {
		name, rest = line[:i], line[i:]
	} else {
		return "", nil, 0, false
	}
	if name != "process_cpu_seconds_total" && name != "guidepost_queue_size" {
		return name, nil, 0, false // cheap exit for the hundreds of other series
	}
	if strings.HasPrefix(rest, "{") {
		end := closingBrace(rest)
		if end < 0 {
			return "", nil, 0, false
		}
		labels, rest = parseLabels(rest[1:end]), rest[end+1:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	return name, labels, v, err == nil
}

// closingBrace finds the } that ends the label set, skipping quoted values.
func closingBrace(s string) int {
	inQuote := false
	for i := 1; i < len(s); i++ {
		switch {
		case inQuote && s[i] == '\\':
			i++
		case s[i] == '"':
			inQuote = !inQuote
		case !inQuote && s[i] == '}':
			return i
		}
	}
	return -1
}

func parseLabels(s string) map[string]string {
	m := map[string]string{}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			break
		}
		key := strings.TrimSpace(strings.TrimLeft(s[:eq], ","))
		var val strings.Builder
		i := eq + 2
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			val.WriteByte(s[i])
		}
		m[key] = val.String()
		s = strings.TrimLeft(s[min(i+1, len(s)):], ", ")
	}
	return m
}
