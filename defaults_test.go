package guidepost_test

import (
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

func TestDefaultFillsOnlyUnsetSettings(t *testing.T) {
	unset, negative, set := 0, -3, 7
	guidepost.Default(&unset, 5)
	guidepost.Default(&negative, 5)
	guidepost.Default(&set, 5)
	if unset != 5 || negative != 5 || set != 7 {
		t.Fatalf("unset %d, negative %d, set %d", unset, negative, set)
	}
	var d time.Duration
	guidepost.Default(&d, time.Second)
	if d != time.Second {
		t.Fatalf("duration %v", d)
	}
}
