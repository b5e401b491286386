package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stepTotal is the time spent in one step over a level, and how often.
type stepTotal struct {
	sum time.Duration
	n   int
}

func (t stepTotal) meanMs() float64 {
	if t.n == 0 {
		return 0
	}
	return float64(t.sum.Microseconds()) / 1000 / float64(t.n)
}

// stepClock adds up the floor's store calls, one total per call.
type stepClock struct {
	mu sync.Mutex
	m  map[string]stepTotal
}

func (c *stepClock) add(name string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]stepTotal{}
	}
	t := c.m[name]
	t.sum, t.n = t.sum+d, t.n+1
	c.m[name] = t
}

func (c *stepClock) totals() map[string]stepTotal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.m)
}

const stepMetric = "guidepost_direct_upload_step_seconds"

// serverSteps reads the API's per-step timers (media.StepTimes) from its
// /metrics; nil when it does not export them.
func serverSteps(hc *http.Client) map[string]stepTotal {
	resp, err := hc.Get(*metricsURL + "/metrics")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	return parseSteps(resp.Body)
}

// parseSteps picks the _sum and _count lines of the step histogram out of
// a Prometheus text exposition.
func parseSteps(r io.Reader) map[string]stepTotal {
	out := map[string]stepTotal{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), stepMetric)
		if !ok {
			continue
		}
		kind, labels, ok := strings.Cut(rest, `{step="`)
		if !ok || (kind != "_sum" && kind != "_count") {
			continue
		}
		step, value, ok := strings.Cut(labels, `"} `)
		v, err := strconv.ParseFloat(value, 64)
		if !ok || err != nil {
			continue
		}
		t := out[step]
		if kind == "_sum" {
			t.sum = time.Duration(v * float64(time.Second))
		} else {
			t.n = int(v)
		}
		out[step] = t
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// stepsSince is what each step took between two readings.
func stepsSince(before, after map[string]stepTotal) map[string]stepTotal {
	out := map[string]stepTotal{}
	for k, a := range after {
		b := before[k]
		if a.n > b.n {
			out[k] = stepTotal{sum: a.sum - b.sum, n: a.n - b.n}
		}
	}
	return out
}

// stepLine writes the steps' mean times, largest first, and their sum per
// upload: "complete.s3_probe 41.2, complete.s3_complete 12.0, … (Σ 80.1 ms)".
func stepLine(steps map[string]stepTotal) string {
	names := make([]string, 0, len(steps))
	var total float64
	for k, t := range steps {
		names = append(names, k)
		total += t.meanMs()
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(steps[b].meanMs(), steps[a].meanMs()), strings.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %.1f", k, steps[k].meanMs())
	}
	return fmt.Sprintf("%s (Σ %.1f ms)", strings.Join(parts, ", "), total)
}
