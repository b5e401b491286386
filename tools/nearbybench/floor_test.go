package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// Both floors answer the storm's routes alike: a like counts once per
// guest however often it is tapped, the count reads back, and an unknown
// guide is a 404.
func TestFloorsCountEachGuestOnce(t *testing.T) {
	t.Run("memory", func(t *testing.T) { checkFloor(t, newMemFloor()) })
	for _, group := range []bool{false, true} {
		t.Run(fmt.Sprintf("db group=%v", group), func(t *testing.T) {
			db, err := openDBFloor(context.Background(), dbFloorOpts{testkit.DatabaseURL(t), 4, group})
			if err != nil {
				t.Fatal(err)
			}
			defer db.close()
			checkFloor(t, db)
			var sessions int
			if err := db.pool.QueryRow(context.Background(), `SELECT count(*) FROM `+floorSchema+`.sessions`).Scan(&sessions); err != nil || sessions != 8 {
				t.Fatalf("session rows: %d (%v), want one per guest", sessions, err)
			}
		})
	}
}

func checkFloor(t *testing.T, st floorStore) {
	srv := httptest.NewServer(floorHandler(st))
	defer srv.Close()
	c := srv.Client()
	tokens := make([]string, 8)
	for i := range tokens {
		var s struct {
			AccessToken string `json:"access_token"`
		}
		if code := post(c, "POST", srv.URL+"/v1/auth/guest", "", "", &s); code != http.StatusCreated || s.AccessToken == "" {
			t.Fatalf("guest: %d %q", code, s.AccessToken)
		}
		tokens[i] = s.AccessToken
	}
	var g struct{ ID string }
	if code := post(c, "POST", srv.URL+"/v1/guides", tokens[0], `{}`, &g); code != http.StatusCreated {
		t.Fatalf("guide: %d", code)
	}
	var wg sync.WaitGroup
	for _, tok := range tokens {
		for range 2 { // the double tap, at once
			wg.Go(func() {
				var r struct {
					LikedByMe bool  `json:"liked_by_me"`
					LikeCount int64 `json:"like_count"`
				}
				if code := post(c, "PUT", srv.URL+"/v1/guides/"+g.ID+"/like", tok, "", &r); code != http.StatusOK || !r.LikedByMe || r.LikeCount < 1 || r.LikeCount > 8 {
					t.Errorf("like: %d %+v", code, r)
				}
			})
		}
	}
	wg.Wait()
	var after struct {
		LikeCount int64 `json:"like_count"`
	}
	if post(c, "GET", srv.URL+"/v1/guides/"+g.ID, "", "", &after); after.LikeCount != 8 {
		t.Errorf("like_count after 8 guests × 2 taps: %d", after.LikeCount)
	}
	for _, id := range []string{"00000000-0000-4000-8000-999999999999", "probe"} {
		if code := post(c, "PUT", srv.URL+"/v1/guides/"+id+"/like", tokens[0], "", nil); code != http.StatusNotFound {
			t.Errorf("like of unknown guide %s: %d, want 404", id, code)
		}
	}
}

// The comparison prints both ratios when the database floor ran, and its
// JSON keeps the old fields, adding the database floor's.
func TestComparisonPrintsBothRatios(t *testing.T) {
	run := func(p95, perS float64) likeSummary {
		return likeSummary{Taps: 2, Answers: map[int]int{200: 2}, P95ms: p95, RecordedPerS: perS, LikeCount: 1}
	}
	c := &stormComparison{Users: 1, API: []likeSummary{run(300, 80)}, Floor: []likeSummary{run(200, 100)}}
	var out bytes.Buffer
	c.print(&out)
	if !strings.Contains(out.String(), "p95 ÷ floor 1.50; recorded/s ÷ floor 0.80") || strings.Contains(out.String(), "db floor") {
		t.Fatalf("memory floor only:\n%s", out.String())
	}
	c.FloorDB, c.FloorDBConns = []likeSummary{run(600, 40)}, 16
	out.Reset()
	c.print(&out)
	if !strings.Contains(out.String(), "p95 ÷ floor 1.50; recorded/s ÷ floor 0.80") ||
		!strings.Contains(out.String(), "p95 ÷ db floor 0.50; recorded/s ÷ db floor 2.00") ||
		!strings.Contains(out.String(), "PostgreSQL CPU s API / db floor") ||
		!strings.Contains(out.String(), "generator CPU s API / floor / db floor") {
		t.Fatalf("both floors:\n%s", out.String())
	}
	var back map[string]json.RawMessage
	b, _ := json.Marshal(c)
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"date", "users", "api", "floor", "floor_db", "floor_db_conns"} {
		if _, ok := back[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
}

// A run pooled over storms takes its percentiles over every tap and its
// rates over the time all of them took, not the mean of each storm's.
func TestPoolTakesEveryTapAndTheWholeTime(t *testing.T) {
	storm := func(seconds float64, likes int64, cpu float64, lats ...time.Duration) likeSummary {
		return likeSummary{Users: len(lats) / 2, Taps: len(lats), Seconds: seconds, LikeCount: likes,
			Answers: map[int]int{200: len(lats)}, ServerCPU: cpu, GeneratorCPU: 0.1, HostCPU: cpu + 0.1, lats: lats}
	}
	var fast, slow []time.Duration
	for i := range 100 {
		fast = append(fast, time.Duration(i+1)*time.Millisecond)
		slow = append(slow, 500*time.Millisecond)
	}
	p := pool([]likeSummary{storm(1, 50, 0.5, fast...), storm(3, 50, 0.7, slow...)})
	if p.Storms != 2 || p.Taps != 200 || p.Answers[200] != 200 || p.LikeCount != 100 || p.Users != 50 {
		t.Fatalf("counts: %+v", p)
	}
	// The 95th of 200 taps is a slow one; either storm's own p95 alone
	// would be 96 or 500 ms.
	if p.P95ms != 500 || p.P50ms != 500 || p.RecordedPerS != 25 || p.TapsPerS != 50 {
		t.Fatalf("pooled p50 %.0f, p95 %.0f ms, %.1f recorded/s, %.1f taps/s; want 500, 500, 25, 50",
			p.P50ms, p.P95ms, p.RecordedPerS, p.TapsPerS)
	}
	if math.Abs(p.ServerCPU-1.2) > 1e-9 || math.Abs(p.GeneratorCPU-0.2) > 1e-9 || math.Abs(p.HostCPU-1.4) > 1e-9 {
		t.Fatalf("CPU: server %.2f, generator %.2f, host %.2f", p.ServerCPU, p.GeneratorCPU, p.HostCPU)
	}
	unknown := pool([]likeSummary{storm(1, 1, -1, fast...), storm(1, 1, 0.5, fast...)})
	if unknown.ServerCPU != -1 {
		t.Fatalf("a storm of unknown CPU makes the pool's unknown, got %.2f", unknown.ServerCPU)
	}
	unknown = pool([]likeSummary{storm(1, 1, 0.5, fast...), storm(1, 1, -1.1, fast...)})
	if unknown.HostCPU != -1 {
		t.Fatalf("a storm of unknown machine CPU makes the pool's unknown, got %.2f", unknown.HostCPU)
	}
	if one := pool([]likeSummary{storm(1, 50, 0.5, fast...)}); one.P95ms != 96 || one.P50ms != 51 {
		t.Fatalf("one storm: p50 %.0f, p95 %.0f; want 51, 96", one.P50ms, one.P95ms)
	}
}

func TestHostBusyLeavesOutIdleAndIOWait(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	if got := hostBusy("cpu  1000 50 300 9000 400 20 30 100 0 0"); math.Abs(got-15) > 1e-9 {
		t.Fatalf("busy %.2f s, want 15 (1,500 ticks)", got)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 x 4 5 6 7 8"} {
		if got := hostBusy(bad); got != -1 {
			t.Errorf("%q: %.2f, want -1", bad, got)
		}
	}
	if busy, cpus := hostCPU(); busy <= 0 || cpus < 1 {
		t.Errorf("this machine's /proc/stat gave %.2f s busy on %d CPUs", busy, cpus)
	}
}

func TestBusyShareIsOfTheWholeMachine(t *testing.T) {
	if got := busyShare(likeSummary{HostCPU: 3, Seconds: 2, HostCPUs: 2}); got != "75 %" {
		t.Errorf("3 CPU-s busy over 2 s on 2 CPUs: %q, want 75 %%", got)
	}
	for _, s := range []likeSummary{{HostCPU: -1, Seconds: 2, HostCPUs: 2}, {HostCPU: 3, HostCPUs: 2}, {HostCPU: 3, Seconds: 2}} {
		if got := busyShare(s); got != "–" {
			t.Errorf("%+v: %q, want –", s, got)
		}
	}
}

// dbCPU counts the database's own work: a query that keeps a backend busy
// shows in it.
func TestDBCPUCountsTheBackends(t *testing.T) {
	ctx := context.Background()
	db, err := openDBFloor(ctx, dbFloorOpts{url: testkit.DatabaseURL(t), conns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.close()
	before := dbCPU()
	if before == nil {
		t.Skip("no PostgreSQL process in this machine's /proc")
	}
	var n int64
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM generate_series(1, 5000000)`).Scan(&n); err != nil || n != 5000000 {
		t.Fatalf("count: %d %v", n, err)
	}
	if s := dbCPUSince(before, dbCPU()); s < 0.05 {
		t.Fatalf("PostgreSQL CPU across a 5-million-row count: %.3f s", s)
	}
}
