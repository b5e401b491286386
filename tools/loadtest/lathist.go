package main

import (
	"math"
	"time"
)

// latHist is a fixed log-scale latency histogram for the per-second
// timeline: 64 buckets from 100 µs growing by 25 % each (up to ~2.7 min),
// so a second of data costs 256 bytes and no allocation per request. Its
// quantiles are within ~12 %, enough for a chart; the summary figures use
// vegeta's t-digest instead.
type latHist [64]uint32

const (
	histBase  = 100 * time.Microsecond
	histRatio = 1.25
)

var histLogRatio = math.Log(histRatio)

func histIndex(d time.Duration) int {
	if d <= histBase {
		return 0
	}
	i := int(math.Log(float64(d)/float64(histBase)) / histLogRatio)
	return min(i, len(latHist{})-1)
}

// histUpper is the upper edge of bucket i.
func histUpper(i int) time.Duration {
	return time.Duration(float64(histBase) * math.Pow(histRatio, float64(i+1)))
}

func (h *latHist) add(d time.Duration) { h[histIndex(d)]++ }

func (h *latHist) count() (n uint64) {
	for _, c := range h {
		n += uint64(c)
	}
	return n
}

// quantile returns the upper edge of the bucket holding quantile q (0 if empty).
func (h *latHist) quantile(q float64) time.Duration {
	n := h.count()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i, c := range h {
		if seen += uint64(c); seen >= max(rank, 1) {
			return histUpper(i)
		}
	}
	return histUpper(len(h) - 1)
}
