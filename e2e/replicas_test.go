package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// Two API processes read from a replica replaying two seconds late. A
// client writes through one and reads at once through the other: it sees
// its guide and its like (its read mark is in Redis); anyone else sees the
// guide within the feed's delay, not the replica's.
func TestReplicaReadsSeeTheClientsWritesOnEveryProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private primary and replica, and two servers")
	}
	pair := testkit.StartPGPair(t, testkit.PairOptions{ApplyDelay: 2 * time.Second})
	env := stackEnv(t, testkit.RedisDBE2EFault)
	for i, kv := range env {
		if strings.HasPrefix(kv, "DATABASE_URL=") {
			env[i] = "DATABASE_URL=" + pair.Primary.URL
		}
	}
	env = append(env, "DATABASE_REPLICA_URLS="+pair.Replica.URL, "DATABASE_REPLICA_MAX_LAG=30s")
	a := testkit.Start(t, env, freeAddr(t), "serve")
	b := testkit.Start(t, env, freeAddr(t), "serve")

	token := guestToken(t, a.URL)
	pair.CaughtUp(time.Minute) // the guest's account is on the replica
	status, body := send(t, "POST", a.URL+"/v1/guides", token, `{"title":"Fresh","lat":37.55,"lng":126.99}`)
	if status != 201 {
		t.Fatalf("create: %d %s", status, body)
	}
	var g struct {
		ID        string `json:"id"`
		LikedByMe bool   `json:"liked_by_me"`
	}
	json.Unmarshal([]byte(body), &g)
	if status, _, body := authedGet(t, b.URL+"/v1/guides/"+g.ID, token); status != 200 {
		t.Fatalf("the writer reading its guide on the other process: %d %s", status, body)
	}
	// The replica has the guide now: the other process's map reads may go
	// there again, and only the liker's mark can send its next read past
	// the replica's two seconds.
	pair.CaughtUp(time.Minute)
	if status, body := send(t, "PUT", a.URL+"/v1/guides/"+g.ID+"/like", token, ""); status != 200 {
		t.Fatalf("like: %d %s", status, body)
	}
	_, _, body = authedGet(t, b.URL+"/v1/guides/"+g.ID, token)
	json.Unmarshal([]byte(body), &g)
	if !g.LikedByMe {
		t.Errorf("the liker's next read on the other process: %s", body)
	}
	// Anyone: within the feed's delay (NOTIFY, milliseconds), far less
	// than the replica's two seconds, on the map and on the guide.
	start := time.Now()
	for {
		s1, _ := get(t, b.URL+"/v1/guides/"+g.ID)
		s2, near := get(t, b.URL+"/v1/guides/nearby?lat=37.55&lng=126.99&radius_m=10")
		if s1 == 200 && s2 == 200 && strings.Contains(near, g.ID) {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("an anonymous reader never saw the guide: %d %d %s", s1, s2, near)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("an anonymous reader on the other process saw the guide after %s", time.Since(start).Round(time.Millisecond))
}

func send(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	status, _, answer := do(t, method, url, token, body)
	return status, answer
}
