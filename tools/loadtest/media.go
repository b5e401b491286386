package main

import (
	"context"
	"net/http"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

type mediaAnswer struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// mediaTracker separates accepted uploads (the API said 202) from completed
// ones (the photo reached "ready"): a queue can accept far more than its
// workers finish, and only the second number is work done.
type mediaTracker struct {
	mu           sync.Mutex
	pending      map[string]pendingMedia
	seen         map[string]bool
	accepted     int
	dedup        int
	ready        int
	failed       int
	firstAccept  time.Time
	lastResolved time.Time
	lastReady    time.Time
	toReady      []time.Duration // accepted → seen ready
	rec          *recorder
}

type pendingMedia struct {
	owner    *user
	at       time.Time
	polledAt time.Time
}

func newMediaTracker(rec *recorder) *mediaTracker {
	return &mediaTracker{pending: map[string]pendingMedia{}, seen: map[string]bool{}, rec: rec}
}

// accept notes an upload answer. 200 means the server matched bytes this
// user uploaded before: no new work, counted apart.
func (m *mediaTracker) accept(a mediaAnswer, code int, owner *user, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if code == http.StatusOK {
		m.dedup++
	}
	if a.ID == "" || m.seen[a.ID] {
		return
	}
	m.seen[a.ID] = true
	m.accepted++
	if m.firstAccept.IsZero() {
		m.firstAccept = at
	}
	m.rec.event(evAccepted, at)
	m.pending[a.ID] = pendingMedia{owner: owner, at: at}
	m.resolveLocked(a.ID, a.Status, at)
}

func (m *mediaTracker) resolve(id, status string, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resolveLocked(id, status, at)
}

func (m *mediaTracker) resolveLocked(id, status string, at time.Time) {
	p, ok := m.pending[id]
	if !ok || (status != "ready" && status != "failed") {
		return
	}
	delete(m.pending, id)
	m.lastResolved = at
	if status == "failed" {
		m.failed++
		return
	}
	m.ready++
	m.lastReady = at
	m.toReady = append(m.toReady, at.Sub(p.at))
	m.rec.event(evReady, at)
}

// target is one photo to poll.
type target struct {
	id    string
	owner *user
}

// snapshot picks up to limit pending photos (limit ≤ 0: all): half the
// oldest, which a FIFO queue finishes first, and half those least recently
// polled, so photos stuck forever at the head cannot starve the rest.
func (m *mediaTracker) snapshot(limit int, now time.Time) []target {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.pending))
	for id := range m.pending {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return m.pending[ids[i]].at.Before(m.pending[ids[j]].at) })
	if limit > 0 && len(ids) > limit {
		oldest := max(limit/2, 1)
		rest := ids[oldest:]
		sort.SliceStable(rest, func(i, j int) bool { return m.pending[rest[i]].polledAt.Before(m.pending[rest[j]].polledAt) })
		ids = ids[:limit]
	}
	out := make([]target, len(ids))
	for i, id := range ids {
		p := m.pending[id]
		p.polledAt = now
		m.pending[id] = p
		out[i] = target{id: id, owner: p.owner}
	}
	return out
}

func (m *mediaTracker) pendingCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pending)
}

// pollRound asks the server for the status of up to limit pending photos,
// conc at a time, with each photo's owner's token.
func (m *mediaTracker) pollRound(ctx context.Context, c *client, limit, conc int) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for _, t := range m.snapshot(limit, time.Now()) {
		g.Go(func() error {
			var a mediaAnswer
			o := c.do(gctx, request{kind: "media_poll", method: http.MethodGet, path: "/v1/media/" + t.id, user: t.owner, out: &a})
			if o.ok() {
				m.resolve(t.id, a.Status, time.Now())
			}
			return nil
		})
	}
	_ = g.Wait()
}

// pollWhile polls every `every` until ctx ends, a bounded number per round
// so that status polling stays a small share of the load.
func (m *mediaTracker) pollWhile(ctx context.Context, c *client, every time.Duration, limit int) {
	for sleepCtx(ctx, every) {
		m.pollRound(ctx, c, limit, 4)
	}
}

// drain polls until nothing is pending or ctx ends; it returns whether the
// backlog drained. While /metrics shows jobs queued, it polls only a bounded
// sample (polling thousands of photos a second would steal the CPU the
// workers need); once the queue is empty, or its depth is unknown, it polls
// everything left.
func (m *mediaTracker) drain(ctx context.Context, c *client, every time.Duration, queueDepth func() (float64, bool)) bool {
	for {
		if m.pendingCount() == 0 {
			return true
		}
		limit := 0
		if d, ok := queueDepth(); ok && d > 0 {
			limit = livePollLimit
		}
		m.pollRound(ctx, c, limit, 8)
		if m.pendingCount() == 0 {
			return true
		}
		if !sleepCtx(ctx, every) {
			return false
		}
	}
}
