package cache

import (
	"slices"
	"testing"
)

// A tile is admitted on a miss while its first miss is remembered: in the
// current generation or the one before, not older.
func TestDoorkeeperRemembersTwoGenerations(t *testing.T) {
	d := newDoorkeeper(2)
	if got := d.admit([]int64{1, 2}); len(got) != 0 {
		t.Fatalf("first misses admitted: %v", got)
	}
	if got := d.admit([]int64{1, 3}); !slices.Equal(got, []int64{1}) { // 3 starts a generation
		t.Fatalf("second miss of 1: admitted %v", got)
	}
	if got := d.admit([]int64{2, 4}); !slices.Equal(got, []int64{2}) { // 2 is in the previous one
		t.Fatalf("2 from the previous generation: admitted %v", got)
	}
	d.admit([]int64{5, 6}) // two more generations: 1 and 2 are forgotten
	if got := d.admit([]int64{1}); len(got) != 0 {
		t.Fatalf("a miss forgotten two generations ago admitted: %v", got)
	}
}
