package guidepost_test

import (
	"context"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

func TestSleepWaitsOrStopsWithItsContext(t *testing.T) {
	start := time.Now()
	if !guidepost.Sleep(context.Background(), 20*time.Millisecond) || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("slept %s, want 20ms and true", time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	if guidepost.Sleep(ctx, time.Hour) || guidepost.Sleep(ctx, 0) || time.Since(start) > time.Second {
		t.Fatal("an ended context must stop the sleep at once, and report it")
	}
}
