package events_test

import (
	"testing"

	"github.com/guidepost/guidepost/events"
)

func TestAfter(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"2-0", "1-9", true}, {"1-10", "1-9", true}, {"1-9", "1-9", false}, {"1-0", "2-0", false},
		{"1-0", "", true}, {"x", "", false}, {"1-0", "x", true}, {"12", "1-0", false},
	} {
		if got := events.After(tc.a, tc.b); got != tc.want {
			t.Errorf("After(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}
