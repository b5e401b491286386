package main

import (
	"math"
	"math/rand/v2"
	"sort"
)

// zipf samples indexes 0..n-1 with P(i) ∝ 1/(i+1)^s: a few guides get most
// reads, as on any content site. math/rand's Zipf needs a per-goroutine
// *rand.Rand; a precomputed CDF and the goroutine-safe top-level source is
// simpler and costs one binary search per draw.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) *zipf {
	cdf := make([]float64, n)
	var sum float64
	for i := range n {
		sum += 1 / math.Pow(float64(i+1), s)
		cdf[i] = sum
	}
	for i := range cdf {
		cdf[i] /= sum
	}
	return &zipf{cdf: cdf}
}

func (z *zipf) sample() int {
	if len(z.cdf) == 0 {
		return 0
	}
	return min(sort.SearchFloat64s(z.cdf, rand.Float64()), len(z.cdf)-1)
}
