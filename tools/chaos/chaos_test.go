package main

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// The short drills under load: an API process killed with -9 and the Redis
// primary killed under Sentinel. On a busy 2-core machine latency and the
// exact recovery time vary, so the test asserts what must hold however
// slow the machine is: nothing accepted is lost, and errors stop before
// the load ends.
func TestShortDrillsLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, Redis under Sentinel, an S3 server and four guidepost processes")
	}
	work, err := os.MkdirTemp("", "guidepost-chaos-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(work)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	f, err := startFleet(ctx, testkit.RepoRoot(t), work, log, fleetConfig{APIs: 2, Workers: 2, WorkerConcurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	const load, faultAt = 15 * time.Second, 4 * time.Second
	for _, name := range []string{"api-kill", "redis-failover"} {
		d, _ := drillNamed(name)
		r, err := runDrill(ctx, f, d, loadConfig{Rate: 20, Duration: load, Drain: 4 * time.Minute}, faultAt)
		if err != nil {
			t.Fatalf("%s: %v (logs in %s)", name, err, work)
		}
		t.Logf("%s: %+v", name, r)
		if r.Requests == 0 || r.Accepted == 0 || r.LikesAcked == 0 {
			t.Errorf("%s: the load did nothing: %+v", name, r)
		}
		if r.Accepted != r.Ready {
			t.Errorf("%s: %d photos accepted, %d ready after the drain (%d failed, %d not ready)",
				name, r.Accepted, r.Ready, r.Failed, r.NotReady)
		}
		if !r.LikesVerified || r.LikesLost != 0 || r.LikesDup != 0 {
			t.Errorf("%s: likes acknowledged %d, recorded %d (lost %d, duplicated %d, verified %v)",
				name, r.LikesAcked, r.LikesRecorded, r.LikesLost, r.LikesDup, r.LikesVerified)
		}
		if r.RecoveredS < 0 {
			t.Errorf("%s: requests still failed in the last second of the load", name)
		}
	}
}

func TestRecoveryReadsTheTimeline(t *testing.T) {
	var s summary
	s.Timeline = make([]struct {
		T        int `json:"t"`
		Requests int `json:"requests"`
		Errors   int `json:"errors"`
	}, 10)
	if got := recovery(s, 3.5); got != 0 {
		t.Errorf("no errors: %v, want 0", got)
	}
	s.Timeline[1].Errors = 2 // before the fault: not the fault's
	s.Timeline[5].Errors = 1
	if got := recovery(s, 3.5); got != 2.5 {
		t.Errorf("errors until second 6: %v, want 2.5", got)
	}
	s.Timeline[9].Errors = 1
	if got := recovery(s, 3.5); got != -1 {
		t.Errorf("errors in the last second: %v, want -1", got)
	}
}
