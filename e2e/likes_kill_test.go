package e2e

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// Likes are group-committed: a batch is answered only after its commit.
// The API is SIGKILLed in the middle of a like storm; every like it
// acknowledged is in the database, and the counters match the rows.
func TestAcknowledgedLikesSurviveKill9(t *testing.T) {
	env := stackEnv(t, testkit.RedisDBE2E)
	p := testkit.Start(t, env, freeAddr(t), "serve")
	api := newGuideAPI(t, p.URL)
	pool := dbPool(t, env)
	ctx := context.Background()
	_, author := api.guest()
	var g struct{ ID string }
	if code, raw := api.call("POST", "/v1/guides", author, map[string]any{"title": "Hot", "lat": 37.5, "lng": 127.0}, &g); code != 201 {
		t.Fatalf("create: %d %s", code, raw)
	}
	const users = 3000
	ids, tokens := fans(t, pool, users)
	// 200 clients tap like for user after user (a double tap each) until
	// the server dies; an answer 200 is an acknowledged like.
	acked := make([]atomic.Bool, users)
	var next, nacked atomic.Int64
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= users {
					return
				}
				var tap sync.WaitGroup
				for range 2 {
					tap.Go(func() {
						if like(api, g.ID, tokens[i]) == 200 {
							if !acked[i].Swap(true) {
								nacked.Add(1)
							}
						}
					})
				}
				tap.Wait()
				select {
				case <-p.Exited():
					return
				default:
				}
			}
		})
	}
	waitFor := time.Now().Add(30 * time.Second)
	for nacked.Load() < 300 && time.Now().Before(waitFor) {
		time.Sleep(time.Millisecond)
	}
	p.Signal(syscall.SIGKILL)
	if !p.Wait(10 * time.Second) {
		t.Fatal("the server survived SIGKILL")
	}
	wg.Wait()
	if int(next.Load()) >= users {
		t.Fatalf("the storm ended before the kill (%d acknowledged): nothing was tested", nacked.Load())
	}
	rows := map[string]bool{}
	r, err := pool.Query(ctx, `SELECT user_id::text FROM guide_likes WHERE guide_id = $1`, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var id string
		r.Scan(&id)
		rows[id] = true
	}
	r.Close()
	lost := 0
	for i := range users {
		if acked[i].Load() && !rows[ids[i]] {
			lost++
		}
	}
	var counted int
	if err := pool.QueryRow(ctx, `SELECT g.like_count + coalesce((SELECT sum(n) FROM guide_like_shards WHERE guide_id = g.id), 0)
		FROM guides g WHERE g.id = $1`, g.ID).Scan(&counted); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed after %d acknowledged likes; %d rows (unacknowledged but committed: %d); counters say %d",
		nacked.Load(), len(rows), len(rows)-int(nacked.Load())+lost, counted)
	if lost > 0 {
		t.Errorf("%d acknowledged likes lost", lost)
	}
	if counted != len(rows) {
		t.Errorf("counters say %d likes, %d rows", counted, len(rows))
	}
}

// like taps once; a dead server is a 0, not a test error.
func like(api *guideAPI, guide, token string) int {
	req, _ := http.NewRequest("PUT", api.base+"/v1/guides/"+guide+"/like", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := api.hc.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
