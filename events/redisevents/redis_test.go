package redisevents_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/events"
	"github.com/guidepost/guidepost/events/redisevents"
	"github.com/guidepost/guidepost/internal/testkit"
)

// startProcess is what one API process holds: a hub with a stream open
// for each of users, and the feed that fills it, stopped and joined at the
// end of the test. The streams open first, so that the feed's first
// subscription tells them (waitMissed) once it is confirmed.
func startProcess(t *testing.T, url string, users ...string) []*events.Subscription {
	t.Helper()
	log := redisevents.New(redisevents.Deps{Client: testkit.RedisClient(t, url), Registerer: prometheus.NewRegistry()}, redisevents.Config{})
	hub := events.NewHub(events.HubDeps{}, events.HubConfig{})
	var subs []*events.Subscription
	for _, u := range users {
		subs = append(subs, subscribe(t, hub, u))
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { log.Run(ctx, hub) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return subs
}

func subscribe(t *testing.T, h *events.Hub, user string) *events.Subscription {
	t.Helper()
	s, err := h.Subscribe(user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// waitMissed waits for the hub to report its subscription confirmed: a
// stream opened earlier is told to read its log.
func waitMissed(t *testing.T, s *events.Subscription) {
	t.Helper()
	select {
	case <-s.Missed():
	case <-time.After(5 * time.Second):
		t.Fatal("the feed did not subscribe")
	}
}

func next(t *testing.T, s *events.Subscription, within time.Duration) events.Event {
	t.Helper()
	select {
	case e := <-s.Events():
		return e
	case <-time.After(within):
		t.Fatalf("no event within %s", within)
	}
	return events.Event{}
}

// An event published by one process reaches the streams of its user on
// another within a second, and nobody else's.
func TestAnEventReachesItsUserOnAnotherProcess(t *testing.T) {
	url := testkit.RedisURL(t, testkit.RedisDBEvents)
	worker := redisevents.New(redisevents.Deps{Client: testkit.RedisClient(t, url)}, redisevents.Config{})
	subs := startProcess(t, url, "alice", "bob")
	alice, bob := subs[0], subs[1]
	waitMissed(t, alice)
	start := time.Now()
	id, err := worker.Publish(context.Background(), events.Event{UserID: "alice", Type: "media.ready", Subject: "photo-1"})
	if err != nil {
		t.Fatal(err)
	}
	e := next(t, alice, time.Second)
	if e.ID != id || e.Type != "media.ready" || e.Subject != "photo-1" || e.UserID != "alice" {
		t.Fatalf("got %+v; want id %s", e, id)
	}
	t.Logf("published to received: %s", time.Since(start))
	select {
	case e := <-bob.Events():
		t.Fatalf("bob heard alice's event %+v", e)
	case <-time.After(100 * time.Millisecond):
	}
}

// The log returns what came after an id, says when it no longer holds the
// id (left the window, cut by the cap, never there), and ids only grow.
func TestTheLogResumesWithinItsWindowAndCap(t *testing.T) {
	ctx := context.Background()
	url := testkit.RedisURL(t, testkit.RedisDBEvents)
	log := redisevents.New(redisevents.Deps{Client: testkit.RedisClient(t, url)}, redisevents.Config{MaxLen: 3, Window: time.Second})
	var ids []string
	for _, photo := range []string{"p1", "p2", "p3"} {
		id, err := log.Publish(ctx, events.Event{UserID: "carol", Type: "media.ready", Subject: photo})
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > 0 && !events.After(id, ids[len(ids)-1]) {
			t.Fatalf("id %s does not follow %s", id, ids[len(ids)-1])
		}
		ids = append(ids, id)
	}
	evs, complete, err := log.Since(ctx, "carol", ids[0])
	if err != nil || !complete || len(evs) != 2 || evs[0].ID != ids[1] || evs[1].Subject != "p3" {
		t.Fatalf("since the first: %+v, %v, %v", evs, complete, err)
	}
	if evs, complete, _ := log.Since(ctx, "dave", ids[0]); complete || len(evs) != 0 {
		t.Fatalf("another user's log: %+v, %v", evs, complete)
	}
	if _, err := log.Publish(ctx, events.Event{UserID: "carol", Type: "media.failed", Subject: "p4"}); err != nil {
		t.Fatal(err)
	}
	if evs, complete, _ := log.Since(ctx, "carol", ids[0]); complete || len(evs) != 3 || evs[2].Type != "media.failed" {
		t.Fatalf("the cap cut the first; want incomplete and three: %+v, %v", evs, complete)
	}
	if _, _, err := log.Since(ctx, "carol", "yesterday"); guidepost.ErrorCode(err) != guidepost.EINVALID {
		t.Fatalf("a bad id: %v", err)
	}
	time.Sleep(1100 * time.Millisecond)
	last, _ := log.Publish(ctx, events.Event{UserID: "carol", Type: "media.ready", Subject: "p5"})
	if evs, complete, _ := log.Since(ctx, "carol", ids[2]); complete || len(evs) != 1 || evs[0].ID != last {
		t.Fatalf("past the window: %+v, %v", evs, complete)
	}
}

// A stream that cannot keep up loses nothing: it is told to read the log.
// Streams are capped per user and per process.
func TestHubOverflowsIntoTheLogAndCapsStreams(t *testing.T) {
	h := events.NewHub(events.HubDeps{Registerer: prometheus.NewRegistry()}, events.HubConfig{PerUser: 2, Max: 3})
	slow := subscribe(t, h, "erin")
	for i := range 100 {
		h.Publish(events.Event{ID: "1-" + string(rune('0'+i%10)), UserID: "erin"})
	}
	select {
	case <-slow.Missed():
	default:
		t.Fatal("a full stream was not told it missed events")
	}
	if n := len(slow.Events()); n != 64 {
		t.Fatalf("%d events buffered", n)
	}
	second := subscribe(t, h, "erin")
	if _, err := h.Subscribe("erin"); guidepost.ErrorCode(err) != guidepost.ERATELIMITED {
		t.Fatalf("a third stream for one user: %v", err)
	}
	subscribe(t, h, "frank")
	if _, err := h.Subscribe("gina"); guidepost.ErrorCode(err) != guidepost.EUNAVAILABLE {
		t.Fatalf("a fourth stream in the process: %v", err)
	}
	second.Close()
	second.Close()
	subscribe(t, h, "gina")
}

// After Redis restarts, the feed subscribes again and tells every stream
// to read its log; events published afterwards arrive as before.
func TestTheFeedFollowsARestartedRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a Redis server")
	}
	srv := testkit.StartRedis(t)
	s := startProcess(t, srv.URL, "hana")[0]
	waitMissed(t, s)
	srv.Stop()
	srv.Start()
	select {
	case <-s.Missed():
	case <-time.After(10 * time.Second):
		t.Fatal("no catch-up after the restart")
	}
	worker := redisevents.New(redisevents.Deps{Client: testkit.RedisClient(t, srv.URL)}, redisevents.Config{})
	if _, err := worker.Publish(context.Background(), events.Event{UserID: "hana", Type: "media.ready", Subject: "p"}); err != nil {
		t.Fatal(err)
	}
	if e := next(t, s, time.Second); e.Subject != "p" {
		t.Fatalf("after the restart: %+v", e)
	}
}
