package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// stormComparison is -likes with -floor: the same storm against the API
// and the floor, alternating, run after run.
type stormComparison struct {
	Date  string        `json:"date"`
	Users int           `json:"users"`
	API   []likeSummary `json:"api"`
	Floor []likeSummary `json:"floor"`
}

// stormBesideFloor starts the floor, then storms it and the API in turn.
func stormBesideFloor(client *http.Client, base string, users, runs int) (*stormComparison, error) {
	f, err := startFloor()
	if err != nil {
		return nil, err
	}
	defer f.stop()
	cmp := &stormComparison{Date: time.Now().UTC().Format(time.RFC3339), Users: users}
	for range runs {
		cmp.Floor = append(cmp.Floor, likeStorm(client, f.base, users, f.cpu))
		client.CloseIdleConnections() // each storm opens its own connections, as 1,000 phones do
		cmp.API = append(cmp.API, likeStorm(client, base, users, func() float64 { return metricsCPU(client) }))
		client.CloseIdleConnections()
	}
	return cmp, nil
}

func (c *stormComparison) print(w io.Writer) {
	fmt.Fprintf(w, "like storm, %d users × 2 taps, %s; API beside the floor, run by run\n", c.Users, c.Date)
	fmt.Fprintln(w, "run | API p50 / p95 ms | floor p50 / p95 ms | p95 ÷ floor | API recorded/s | floor recorded/s | API refused | server CPU s API / floor | generator CPU s API / floor")
	var ratios, tput []float64
	for i := range c.API {
		a, f := c.API[i], c.Floor[i]
		r := a.P95ms / f.P95ms
		ratios, tput = append(ratios, r), append(tput, a.RecordedPerS/f.RecordedPerS)
		fmt.Fprintf(w, "%d | %.0f / %.0f | %.0f / %.0f | %.2f | %.0f (count %d) | %.0f | %d | %.2f / %.2f | %.2f / %.2f\n",
			i+1, a.P50ms, a.P95ms, f.P50ms, f.P95ms, r, a.RecordedPerS, a.LikeCount, f.RecordedPerS,
			a.Taps-a.Answers[http.StatusOK], a.ServerCPU, f.ServerCPU, a.GeneratorCPU, f.GeneratorCPU)
	}
	fmt.Fprintf(w, "median: p95 ÷ floor %.2f; recorded/s ÷ floor %.2f; API p95 %.0f ms, floor p95 %.0f ms\n",
		median(ratios), median(tput), median(field(c.API, func(s likeSummary) float64 { return s.P95ms })),
		median(field(c.Floor, func(s likeSummary) float64 { return s.P95ms })))
}

func field(ss []likeSummary, f func(likeSummary) float64) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
