package guidepost

import "cmp"

// Default sets *p to v when *p is zero or below: the zero value of a
// setting means "not set", and no count, size or duration here is
// meaningful at or below zero.
func Default[T cmp.Ordered](p *T, v T) {
	var zero T
	if *p <= zero {
		*p = v
	}
}
