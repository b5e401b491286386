package events

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// Hub hands events to the streams open in this process, by user. A stream
// that cannot keep up loses events from its buffer, never blocks the hub:
// it is told it missed some and reads them from the log instead.
type Hub struct {
	perUser, max int

	mu    sync.Mutex
	users map[string]map[*Subscription]struct{}
	n     int

	overflows prometheus.Counter
	refused   *prometheus.CounterVec
}

// HubConfig bounds the streams of one process; DefaultHubConfig has every
// default, and NewHub fills a zero field from it.
type HubConfig struct {
	PerUser int // streams one user may hold open (4)
	Max     int // streams in all (10,000)
}

// DefaultHubConfig is the hub's configuration with every default.
func DefaultHubConfig() HubConfig { return HubConfig{PerUser: 4, Max: 10_000} }

// HubDeps are what the hub uses.
type HubDeps struct {
	Registerer prometheus.Registerer // nil registers nothing
}

// streamBuffer is how many events a stream may have waiting to be sent
// before it is told to read the log instead.
const streamBuffer = 64

// StreamCapRetry is the Retry-After of a stream refused for the per-user
// cap: about as long as a stream whose client vanished takes to be noticed.
const StreamCapRetry = 15 * time.Second

// NewHub registers the streams gauge and counters on deps.Registerer.
func NewHub(deps HubDeps, cfg HubConfig) *Hub {
	def := DefaultHubConfig()
	guidepost.Default(&cfg.PerUser, def.PerUser)
	guidepost.Default(&cfg.Max, def.Max)
	h := &Hub{perUser: cfg.PerUser, max: cfg.Max, users: map[string]map[*Subscription]struct{}{}}
	h.overflows = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_events_overflows_total", Help: "Events a slow stream had no room for; it read them from the log instead.",
	})
	h.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "guidepost_events_refused_total", Help: "Event streams refused, by limit: per_user or process.",
	}, []string{"limit"})
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "guidepost_events_streams", Help: "Event streams (GET /v1/events) open now.",
	}, func() float64 { h.mu.Lock(); defer h.mu.Unlock(); return float64(h.n) })
	if deps.Registerer != nil {
		deps.Registerer.MustRegister(h.overflows, h.refused, open)
	}
	return h
}

// Subscription is one open stream's share of the hub.
type Subscription struct {
	hub    *Hub
	user   string
	events chan Event
	missed chan struct{}
	once   sync.Once
}

// Subscribe opens a stream for userID: ERATELIMITED when the user holds
// PerUser already, EUNAVAILABLE when the process holds Max.
func (h *Hub) Subscribe(userID string) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case len(h.users[userID]) >= h.perUser:
		h.refused.WithLabelValues("per_user").Inc()
		return nil, &guidepost.Error{Code: guidepost.ERATELIMITED,
			Message: fmt.Sprintf("this account has %d event streams open already; close one first", h.perUser),
			// A stream whose client left is noticed within a write timeout
			// or a heartbeat; that is when a retry may find room.
			Limit: &guidepost.Limit{Name: "event_streams_per_user", Quota: int64(h.perUser), RetryAfter: StreamCapRetry}}
	case h.n >= h.max:
		h.refused.WithLabelValues("process").Inc()
		return nil, guidepost.Errorf(guidepost.EUNAVAILABLE, "this server holds as many event streams as it can; retry shortly")
	}
	s := &Subscription{hub: h, user: userID, events: make(chan Event, streamBuffer), missed: make(chan struct{}, 1)}
	if h.users[userID] == nil {
		h.users[userID] = map[*Subscription]struct{}{}
	}
	h.users[userID][s] = struct{}{}
	h.n++
	return s, nil
}

// Events are the user's events, in their log's order.
func (s *Subscription) Events() <-chan Event { return s.events }

// Missed receives when events may have been lost on the way (the buffer
// was full, or the process's subscription broke): read the log.
func (s *Subscription) Missed() <-chan struct{} { return s.missed }

// Close leaves the hub; closing twice is harmless.
func (s *Subscription) Close() {
	s.once.Do(func() {
		h := s.hub
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.users[s.user], s)
		if len(h.users[s.user]) == 0 {
			delete(h.users, s.user)
		}
		h.n--
	})
}

// Publish hands e to its user's streams without waiting for any.
func (h *Hub) Publish(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.users[e.UserID] {
		select {
		case s.events <- e:
		default:
			h.overflows.Inc()
			s.miss()
		}
	}
}

// Missed tells every stream that events may have been lost.
func (h *Hub) Missed() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.users {
		for s := range subs {
			s.miss()
		}
	}
}

func (s *Subscription) miss() {
	select {
	case s.missed <- struct{}{}:
	default: // already told
	}
}
