package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/events"
	"github.com/guidepost/guidepost/events/redisevents"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
	"github.com/guidepost/guidepost/queue"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

// eventsEnv is two API processes and a worker sharing PostgreSQL, Redis and
// S3, each with its own Redis client, hub and feed, as main wires them.
// Redis is a private server: the shared one's DB is flushed by any other
// run of this package, and a stream's log must outlive the test's steps.
type eventsEnv struct {
	t      *testing.T
	apis   [2]*httptest.Server
	srvs   [2]*api.Server
	clock  *clock
	rdb    *redis.Client
	worker *asynq.ServeMux
	log    *redisevents.Redis // the worker's
}

// tune, when set, changes the first API process only.
func newEventsEnv(t *testing.T, tune func(*testServer)) *eventsEnv {
	db := testkit.DB(t)
	url := testkit.StartRedis(t).URL
	blobs := objstore.New(testkit.S3Config(t))
	e := &eventsEnv{t: t, clock: &clock{}}
	e.clock.now.Store(time.Now().UnixNano())
	tokens := auth.NewTokens(strings.Repeat("k", 32), time.Hour, e.clock)
	newMedia := func(rdb *redis.Client, n media.Notifier) *media.Service {
		return media.New(media.Deps{Store: gsql.NewMedia(db), Keys: gsql.NewIdempotencyKeys(db), Blobs: blobs,
			Queue: queue.NewClient(rdb), Clock: guidepost.SystemClock{}, Notifier: n}, media.Config{})
	}
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); wg.Wait() }) // after the servers' own cleanups
	for i := range e.apis {
		rdb := testkit.RedisClient(t, url)
		log := redisevents.New(redisevents.Deps{Client: rdb, Registerer: prometheus.NewRegistry()}, redisevents.Config{})
		ts := &testServer{Deps: api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(),
			Media: newMedia(rdb, nil), Clock: e.clock,
			Events: api.EventStreams{Hub: events.NewHub(events.HubDeps{}, events.HubConfig{}), Log: log, Tickets: log}},
			AuthDeps: auth.Deps{Store: gsql.NewUsers(db), Tokens: tokens, Clock: e.clock}}
		if tune != nil && i == 0 {
			tune(ts)
		}
		ts.Auth = ts.authService()
		wg.Go(func() { log.Run(ctx, ts.Events.Hub) })
		e.srvs[i] = ts.server()
		e.apis[i] = httptest.NewServer(e.srvs[i].Handler())
		t.Cleanup(e.apis[i].Close)
	}
	e.rdb = testkit.RedisClient(t, url)
	e.log = redisevents.New(redisevents.Deps{Client: e.rdb}, redisevents.Config{})
	e.worker = worker.NewMux(newMedia(e.rdb, e.log), worker.NewMetrics(prometheus.NewRegistry()))
	return e
}

// upload sends a photo to API i and returns its id.
func (e *eventsEnv) upload(i int, token, name string) string {
	e.t.Helper()
	data, err := os.ReadFile("../testdata/photos/" + name)
	if err != nil {
		e.t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	h := &harness{t: e.t, srv: e.apis[i]}
	status, _, raw := h.send("POST", "/v1/media", token, mw.FormDataContentType(), &body)
	var m struct{ ID string }
	if status != http.StatusAccepted || json.Unmarshal(raw, &m) != nil {
		e.t.Fatalf("upload %s: %d %s", name, status, raw)
	}
	return m.ID
}

// derive runs the photo's derive task as a worker does; the task commits
// the row, then publishes.
func (e *eventsEnv) derive(mediaID string) {
	e.t.Helper()
	err := e.worker.ProcessTask(context.Background(), asynq.NewTask(queue.TypeDerive, []byte(`{"media_id":"`+mediaID+`"}`)))
	if err != nil && !media.IsPermanent(err) {
		e.t.Fatalf("derive %s: %v", mediaID, err)
	}
}

func (e *eventsEnv) guest(i int) string { return guestToken(e.t, e.apis[i].URL) }

// openStream opens GET /v1/events on base; it must answer 200.
func openStream(t *testing.T, base, token, lastID string) *testkit.SSE {
	t.Helper()
	return testkit.OpenSSE(t, streamRequest(t, base, token, lastID))
}

func streamRequest(t *testing.T, base, token, lastID string) *http.Request {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/events", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	return req
}

// next is the stream's next event, which must match the document.
func next(t *testing.T, s *testkit.SSE) testkit.SSEEvent {
	t.Helper()
	ev := s.Next(5 * time.Second)
	conforms(t, ev)
	return ev
}

type mediaEvent struct {
	ID          string    `json:"id"`
	Status      string    `json:"status"`
	ProcessedAt time.Time `json:"processed_at"`
	Failure     *string   `json:"failure"`
	URLs        struct {
		Thumbnail *string `json:"thumbnail"`
		Marker    *string `json:"marker"`
	} `json:"urls"`
}

func photoOf(t *testing.T, ev testkit.SSEEvent) mediaEvent {
	t.Helper()
	var m mediaEvent
	if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
		t.Fatalf("event data %q: %v", ev.Data, err)
	}
	return m
}

// The stream is on one API process, the upload on another, the commit in
// the worker: the event arrives within a second of the commit, carrying
// the photo as GET /v1/media/{id} shows its owner.
func TestEventReachesAStreamOnAnotherProcess(t *testing.T) {
	e := newEventsEnv(t, nil)
	token := e.guest(0)
	stream := openStream(t, e.apis[1].URL, token, "")
	ready, bad := e.upload(0, token, "photo.jpg"), e.upload(0, token, "corrupt.jpg")
	e.derive(ready)
	ev := next(t, stream)
	m := photoOf(t, ev)
	if ev.Name != "media.ready" || ev.ID == "" || m.ID != ready || m.Status != "ready" || m.URLs.Marker == nil || m.URLs.Thumbnail == nil {
		t.Fatalf("event %+v: %+v", ev, m)
	}
	// processed_at is taken just before the commit: a bound on its time.
	if lag := ev.At.Sub(m.ProcessedAt); lag > time.Second {
		t.Fatalf("the event arrived %s after the commit", lag)
	} else {
		t.Logf("commit to event on the other process: under %s", lag)
	}
	e.derive(bad)
	ev = next(t, stream)
	if m := photoOf(t, ev); ev.Name != "media.failed" || m.ID != bad || m.Failure == nil {
		t.Fatalf("failed photo: %+v %+v", ev, m)
	}
}

// A client that reconnects with Last-Event-ID gets what it missed, in
// order, from either process; one whose id the log no longer holds is told
// to reload first ("resync"); a fresh stream gets nothing from before it.
func TestEventStreamResumesFromLastEventID(t *testing.T) {
	e := newEventsEnv(t, nil)
	token := e.guest(0)
	first := openStream(t, e.apis[0].URL, token, "")
	p1 := e.upload(0, token, "photo.jpg")
	e.derive(p1)
	seen := next(t, first)
	first.Resp.Body.Close()
	p2, p3 := e.upload(1, token, "photo.png"), e.upload(1, token, "corrupt.jpg")
	e.derive(p2)
	e.derive(p3)

	again := openStream(t, e.apis[1].URL, token, seen.ID)
	a, b := next(t, again), next(t, again)
	if photoOf(t, a).ID != p2 || a.Name != "media.ready" || photoOf(t, b).ID != p3 || b.Name != "media.failed" || !events.After(b.ID, a.ID) || !events.After(a.ID, seen.ID) {
		t.Fatalf("resumed: %+v, %+v", a, b)
	}
	again.Quiet(200 * time.Millisecond)

	lost := openStream(t, e.apis[0].URL, token, "1-0")
	if ev := next(t, lost); ev.Name != "resync" {
		t.Fatalf("a resume past the window: %+v", ev)
	}
	for _, want := range []string{p1, p2, p3} {
		if got := photoOf(t, next(t, lost)).ID; got != want {
			t.Fatalf("after resync: %s, want %s", got, want)
		}
	}
	openStream(t, e.apis[0].URL, token, "").Quiet(300 * time.Millisecond)

	// An id ahead of the log (a clock behind it, a made-up id): resync,
	// and then the stream goes on rather than falling silent.
	ahead := openStream(t, e.apis[0].URL, token, "99999999999999-0")
	if ev := next(t, ahead); ev.Name != "resync" {
		t.Fatalf("a resume from ahead of the log: %+v", ev)
	}
	p4 := e.upload(0, token, "photo.webp")
	e.derive(p4)
	if ev := next(t, ahead); photoOf(t, ev).ID != p4 {
		t.Fatalf("after a resume from ahead: %+v, want %s", ev, p4)
	}
}

// A user never sees another user's events: not live, not by resuming from
// another user's event id, not even if an event of another user's photo
// were logged under their name.
func TestEventStreamsNeverCrossUsers(t *testing.T) {
	e := newEventsEnv(t, nil)
	alice, bob := e.guest(0), e.guest(0)
	aliceStream, bobStream := openStream(t, e.apis[1].URL, alice, ""), openStream(t, e.apis[1].URL, bob, "")
	photo := e.upload(0, alice, "photo.jpg")
	e.derive(photo)
	ev := next(t, aliceStream)
	if photoOf(t, ev).ID != photo {
		t.Fatalf("alice: %+v", ev)
	}
	bobStream.Quiet(300 * time.Millisecond)

	stolen := openStream(t, e.apis[0].URL, bob, ev.ID)
	if got := next(t, stolen); got.Name != "resync" {
		t.Fatalf("bob resuming from alice's event: %+v", got)
	}
	stolen.Quiet(300 * time.Millisecond)

	me := (&harness{t: t, srv: e.apis[0]}).do("GET", "/v1/me", bob, "")
	if _, err := e.log.Publish(context.Background(), events.Event{UserID: me.body["id"].(string), Type: "media.ready", Subject: photo}); err != nil {
		t.Fatal(err)
	}
	bobStream.Quiet(300 * time.Millisecond)
}

// A stream holds no request slot and has no request deadline, sends
// heartbeats, and one account may hold only a few; the route refuses what
// it does not understand.
func TestEventStreamsAreExemptAndCapped(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := newEventsEnv(t, func(d *testServer) {
		d.Registry, d.MaxInflight, d.RequestTimeout = reg, 1, 100*time.Millisecond
		d.Streams.Heartbeat = 50 * time.Millisecond
		d.Events.Hub = events.NewHub(events.HubDeps{}, events.HubConfig{PerUser: 2})
	})
	token := e.guest(1)
	h := &harness{t: t, srv: e.apis[0]}
	req := streamRequest(t, e.apis[0].URL, token, "")
	req.Header.Set("Accept-Encoding", "zstd, gzip") // a stream is never compressed: it would be held back
	s1, _ := testkit.OpenSSE(t, req), openStream(t, e.apis[0].URL, token, "")
	if ce := s1.Resp.Header.Get("Content-Encoding"); ce != "" {
		t.Fatalf("a stream sent with Content-Encoding %q", ce)
	}
	if n := gauge(t, reg, "guidepost_http_inflight"); n != 0 {
		t.Fatalf("two streams hold %v of the one request slot", n)
	}
	problem(t, h.sendRequest(streamRequest(t, e.apis[0].URL, token, "")), http.StatusTooManyRequests)
	time.Sleep(300 * time.Millisecond) // three request timeouts
	if beats := s1.Comments(); beats < 3 {
		t.Fatalf("%d heartbeats in 300 ms", beats)
	}
	photo := e.upload(1, token, "photo.jpg")
	e.derive(photo)
	if ev := next(t, s1); photoOf(t, ev).ID != photo {
		t.Fatalf("after the request timeout: %+v", ev)
	}
	for _, tc := range []struct {
		path, token, last string
		want              int
	}{
		{"/v1/events", "", "", 401},
		{"/v1/events?since=1", token, "", 400},
		{"/v1/events", token, "yesterday", 400},
	} {
		req, _ := http.NewRequest("GET", e.apis[1].URL+tc.path, nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		if tc.last != "" {
			req.Header.Set("Last-Event-ID", tc.last)
		}
		problem(t, h.sendRequest(req), tc.want)
	}
}

// Shutdown ends every stream at once (Shutdown would otherwise wait its
// whole grace for them) and refuses new ones; a stream also ends once its
// token has expired.
func TestEventStreamsEndOnShutdownAndExpiry(t *testing.T) {
	e := newEventsEnv(t, func(d *testServer) { d.Streams.Recheck = 50 * time.Millisecond })
	expiring := openStream(t, e.apis[0].URL, e.guest(0), "")
	expiring.Quiet(200 * time.Millisecond)
	e.clock.now.Add(int64(2 * time.Hour))
	wantEnd(t, expiring, "token_expired")
	if !expiring.Ended(time.Second) {
		t.Fatal("the stream outlived its token")
	}

	token := e.guest(0)
	s := openStream(t, e.apis[0].URL, token, "")
	start := time.Now()
	e.srvs[0].EndStreams()
	wantEnd(t, s, "draining")
	if !s.Ended(time.Second) {
		t.Fatal("the stream outlived EndStreams")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := e.srvs[0].WaitHandlers(ctx); err != nil {
		t.Fatalf("handlers still running %s after EndStreams: %v", time.Since(start), err)
	}
	h := &harness{t: t, srv: e.apis[0]}
	if r := h.sendRequest(streamRequest(t, e.apis[0].URL, token, "")); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("a stream after EndStreams: %d", r.status)
	}
}

// wantEnd reads the stream's next event, which must be its end, for reason.
func wantEnd(t *testing.T, s *testkit.SSE, reason string) {
	t.Helper()
	ev := next(t, s)
	if ev.Name != "end" || ev.Data != `{"reason":"`+reason+`"}` {
		t.Fatalf("want the end for %s, got %+v", reason, ev)
	}
}

// A ticket opens one stream, once, within its minute, and the stream lives
// as the token that got the ticket: a logout ends it with session_revoked.
func TestEventTicketsOpenOneStream(t *testing.T) {
	e := newEventsEnv(t, func(d *testServer) { d.Streams.Recheck = 50 * time.Millisecond })
	h := &harness{t: t, srv: e.apis[0]}
	token := e.guest(0)
	problem(t, h.do("POST", "/v1/events/ticket", "", ""), 401)
	r := h.do("POST", "/v1/events/ticket", token, "")
	ticket, _ := r.body["ticket"].(string)
	expires, err := time.Parse(time.RFC3339Nano, fmt.Sprint(r.body["expires_at"]))
	if r.status != 201 || ticket == "" || err != nil || time.Until(expires) > time.Minute || time.Until(expires) < 30*time.Second {
		t.Fatalf("ticket: %d %v", r.status, r.body)
	}
	on := 1 // another process than the ticket's: the ticket is in Redis
	byTicket := func(ticket string) *http.Request {
		req, _ := http.NewRequest("GET", e.apis[on].URL+"/v1/events?ticket="+url.QueryEscape(ticket), nil)
		return req
	}
	s := testkit.OpenSSE(t, byTicket(ticket))
	photo := e.upload(1, token, "photo.jpg")
	e.derive(photo)
	if ev := next(t, s); photoOf(t, ev).ID != photo {
		t.Fatalf("%+v", ev)
	}
	problem(t, h.sendRequest(byTicket(ticket)), 401) // used
	problem(t, h.sendRequest(byTicket("gpt_made-up")), 401)
	both := byTicket(h.do("POST", "/v1/events/ticket", token, "").body["ticket"].(string))
	both.Header.Set("Authorization", "Bearer "+token)
	problem(t, h.sendRequest(both), 400, "ticket")

	// The stream is rechecked by the ticket's token: a logout ends it (on
	// the process that rechecks often).
	on = 0
	second := testkit.OpenSSE(t, byTicket(h.do("POST", "/v1/events/ticket", token, "").body["ticket"].(string)))
	if r := h.do("POST", "/v1/auth/logout", token, ""); r.status != 204 {
		t.Fatalf("logout: %d", r.status)
	}
	wantEnd(t, second, "session_revoked")
}

// gauge reads one gauge of reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}
