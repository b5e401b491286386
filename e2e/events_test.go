package e2e

import (
	"encoding/json"
	"image"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// Two `guidepost serve` processes and a `guidepost worker`, sharing
// PostgreSQL, Redis and S3: a client streaming events from one API process
// hears that the photo it uploaded through the other is ready within a
// second of the worker's commit, with a marker URL that serves a 256 px
// square. SIGTERM ends the stream at once rather than after the grace.
func TestEventsReachAClientOnAnotherAPIProcess(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	upload, stream := s.start("serve"), s.start("serve", "SHUTDOWN_TIMEOUT=30s")
	s.start("worker")
	c := newMediaClient(t, upload.URL)
	// As a browser's EventSource must: a ticket from one process, the
	// stream from the other, no header.
	var ticket struct {
		Ticket string `json:"ticket"`
	}
	if code, raw := c.call("POST", "/v1/events/ticket", nil, &ticket); code != 201 || ticket.Ticket == "" {
		t.Fatalf("ticket: %d %s", code, raw)
	}
	req, _ := http.NewRequest("GET", stream.URL+"/v1/events?ticket="+ticket.Ticket, nil)
	events := testkit.OpenSSE(t, req)

	id := c.upload(map[string][]byte{"photo.jpg": testPhoto(t, "photo.jpg")}, "").doc.ID
	ev := events.Next(60 * time.Second) // a cold worker's first render included
	var doc mediaDoc
	var urls struct {
		URLs struct {
			Marker *string `json:"marker"`
		} `json:"urls"`
	}
	if err := json.Unmarshal([]byte(ev.Data), &doc); err != nil || json.Unmarshal([]byte(ev.Data), &urls) != nil {
		t.Fatalf("event data %q: %v", ev.Data, err)
	}
	if ev.Name != "media.ready" || ev.ID == "" || doc.ID != id || doc.Status != "ready" || doc.ProcessedAt == nil {
		t.Fatalf("event %+v", ev)
	}
	// processed_at is the worker's clock just before its commit.
	lag := ev.At.Sub(*doc.ProcessedAt)
	t.Logf("worker commit to event on the other API process: under %s", lag)
	if lag > time.Second {
		t.Fatalf("the event arrived %s after the commit", lag)
	}
	if b := fetchJPEG(t, urls.URLs.Marker).Bounds(); b.Size() != image.Pt(256, 256) {
		t.Fatalf("marker %v", b.Size())
	}
	_, metrics := get(t, stream.URL+"/metrics")
	if !strings.Contains(metrics, "guidepost_events_streams 1\n") || !strings.Contains(metrics, `guidepost_events_sent_total{event="media.ready"} 1`) {
		t.Error("/metrics does not count the open stream and the event sent")
	}

	start := time.Now()
	stream.Signal(syscall.SIGTERM)
	if end := events.Next(5 * time.Second); end.Name != "end" || end.Data != `{"reason":"draining"}` {
		t.Fatalf("the stream's last event: %+v", end)
	}
	if !events.Ended(5*time.Second) || !stream.Wait(10*time.Second) {
		t.Fatalf("the stream held the API process past SIGTERM:\n%s", stream.Output())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("shutting down with a stream open took %s", took)
	}
}
