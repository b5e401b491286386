package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/events"
)

// EventLog is the per-user log a stream resumes from; *redisevents.Redis
// implements it.
type EventLog interface {
	Since(ctx context.Context, userID, after string) (evs []events.Event, complete bool, err error)
}

// EventTickets trade an access token for a single-use ticket and back, for
// clients that cannot send a header on a stream; *redisevents.Redis implements
// it.
type EventTickets interface {
	IssueTicket(ctx context.Context, accessToken string) (ticket string, expires time.Time, err error)
	RedeemTicket(ctx context.Context, ticket string) (accessToken string, err error)
}

// EventStreams serve GET /v1/events: Hub hands this process's streams the
// events every process publishes, Log replays what a stream missed.
type EventStreams struct {
	Hub     *events.Hub // nil: the route answers 503
	Log     EventLog
	Tickets EventTickets // nil: POST /v1/events/ticket answers 503
}

// StreamTimings time an open event stream.
type StreamTimings struct {
	// Heartbeat is how often an idle stream sends a comment, so proxies
	// and phones keep the connection.
	Heartbeat time.Duration
	// Recheck is how often a stream checks its token and session again: a
	// stream outlives its access token by at most this.
	Recheck time.Duration
}

// Event stream timings: a client reconnects this long after a stream ends
// (the SSE retry field), and one write may take this long before the
// client counts as gone (a phone that stopped reading must not hold its
// stream for ever).
const (
	streamRetry        = time.Second
	streamWriteTimeout = 10 * time.Second
)

// streamsRoute is exempt from the shedder and the request deadline: a
// stream holds no slot and lives until its client leaves, its token ends,
// or the server shuts down.
const streamsRoute = "/v1/events"

func (s *Server) eventRoutes(v1 *gin.RouterGroup) {
	v1.GET("/events", s.redeemTicket, s.requireUser, s.streamEvents)
	v1.POST("/events/ticket", s.requireUser, s.issueTicket)
}

// streamTokenKey holds, in the gin context, the access token a ticket
// stood for: the stream rechecks it as it would the header's.
const streamTokenKey = "stream_token"

type ticketJSON struct {
	Ticket    string    `json:"ticket"`
	ExpiresAt timestamp `json:"expires_at"`
}

// issueTicket is POST /v1/events/ticket: a single-use ticket, for a minute,
// that opens a stream as the caller's token would.
func (s *Server) issueTicket(c *gin.Context) {
	t := s.deps.Events.Tickets
	if t == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "event tickets are not enabled on this server"))
		return
	}
	token, _ := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
	ticket, expires, err := t.IssueTicket(c.Request.Context(), strings.TrimSpace(token))
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, ticketJSON{Ticket: ticket, ExpiresAt: timestamp(expires)})
}

// redeemTicket signs a stream in by its ?ticket= when no header was sent;
// the ticket is spent whatever follows.
func (s *Server) redeemTicket(c *gin.Context) {
	ticket := c.Query("ticket")
	if ticket == "" {
		c.Next()
		return
	}
	if c.GetHeader("Authorization") != "" {
		fail(c, guidepost.Invalid(guidepost.Field("ticket", guidepost.FCONFLICT, "cannot be sent with an Authorization header: send one or the other")))
		return
	}
	if s.deps.Events.Tickets == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "event tickets are not enabled on this server"))
		return
	}
	ctx := c.Request.Context()
	token, err := s.deps.Events.Tickets.RedeemTicket(ctx, ticket)
	var caller auth.Caller
	if err == nil {
		caller, err = s.deps.Auth.Authenticate(ctx, token)
	}
	if err != nil {
		s.unauthorized(c, err)
		return
	}
	c.Set(streamTokenKey, token)
	c.Request = c.Request.WithContext(auth.NewContext(ctx, caller))
	c.Next()
}

// streamEnd is closed when the server shuts down; every stream then ends.
type streamEnd struct {
	once sync.Once
	c    chan struct{}
}

func (e *streamEnd) end()                  { e.once.Do(func() { close(e.c) }) }
func (e *streamEnd) done() <-chan struct{} { return e.c }

// EndStreams ends every event stream now and refuses new ones: a stream
// never goes idle, so http.Server.Shutdown would wait its whole grace for
// it. Clients reconnect (to another process) and resume from their last
// event.
func (s *Server) EndStreams() { s.streamEnd.end() }

func newEventMetrics(reg prometheus.Registerer) *prometheus.CounterVec {
	sent := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "guidepost_events_sent_total", Help: "Events sent on streams, by event name.",
	}, []string{"event"})
	reg.MustRegister(sent)
	return sent
}

// streamEvents is GET /v1/events: text/event-stream of the caller's
// photos turning ready or failed.
func (s *Server) streamEvents(c *gin.Context) {
	es := s.deps.Events
	if es.Hub == nil || es.Log == nil || s.deps.Media == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "events are not enabled on this server"))
		return
	}
	last := c.GetHeader("Last-Event-ID")
	if err := checkStreamRequest(c, last); err != nil {
		fail(c, err)
		return
	}
	select {
	case <-s.streamEnd.done():
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "the server is shutting down; reconnect"))
		return
	default:
	}
	sub, err := es.Hub.Subscribe(auth.UserID(c.Request.Context()))
	if err != nil {
		fail(c, err)
		return
	}
	defer sub.Close()
	st := &eventStream{s: s, c: c, user: auth.UserID(c.Request.Context()), last: last}
	if err := st.open(); err != nil {
		return
	}
	if last != "" {
		if err := st.catchUp(); err != nil {
			st.logEnd(err)
			return
		}
	}
	st.logEnd(st.run(sub))
}

// checkStreamRequest refuses a query string (the route takes none) and a
// Last-Event-ID that is not one of ours.
func checkStreamRequest(c *gin.Context, last string) error {
	q := newQueryParams(c, "ticket")
	if _, _, ok := events.ParseID(last); last != "" && !ok {
		q.fields.Add("Last-Event-ID", guidepost.FINVALIDFORMAT, "must be the id of an event this API sent")
	}
	return q.fields.Err()
}

// eventStream is one open stream: what it has sent so far.
type eventStream struct {
	s    *Server
	c    *gin.Context
	user string
	last string // id of the last event sent, or the client's Last-Event-ID
}

// run sends events until the client leaves, the server shuts down, the
// caller's session ends, or a write or a read fails; it says which.
func (st *eventStream) run(sub *events.Subscription) error {
	es := st.s.cfg.Streams
	ctx := st.c.Request.Context()
	beat := time.NewTicker(es.Heartbeat)
	defer beat.Stop()
	recheck := time.NewTicker(es.Recheck)
	defer recheck.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-st.s.streamEnd.done():
			st.end(endDraining)
			return nil
		case e := <-sub.Events():
			err = st.send(e)
		case <-sub.Missed():
			err = st.missed()
		case <-beat.C:
			err = st.write(": keep-alive\n\n")
		case <-recheck.C:
			if err = st.recheck(); err != nil {
				st.endFor(err)
			}
		}
		if err != nil {
			return err
		}
	}
}

// open answers 200 and sends the headers at once: the client knows the
// stream is up before any event.
func (st *eventStream) open() error {
	h := st.c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise hold events back
	st.c.Status(http.StatusOK)
	return st.write(fmt.Sprintf("retry: %d\n: connected\n\n", streamRetry.Milliseconds()))
}

// catchUp sends what the log holds after the last event sent. When the log
// no longer reaches back that far, a "resync" event says so first: the
// client reloads what it shows instead of trusting the stream.
func (st *eventStream) catchUp() error {
	if st.last == "" {
		return nil // a fresh stream wants nothing from before it opened
	}
	ctx, cancel := context.WithTimeout(st.c.Request.Context(), st.s.cfg.RequestTimeout)
	defer cancel()
	evs, complete, err := st.s.deps.Events.Log.Since(ctx, st.user, st.last)
	if err != nil {
		return err
	}
	if !complete {
		if err := st.resync(); err != nil {
			return err
		}
		// Whatever the log holds is news now: an id ahead of the log (a
		// clock behind it, a made-up id) would otherwise mute the stream.
		st.last = ""
	}
	for _, e := range evs {
		if err := st.send(e); err != nil {
			return err
		}
	}
	return nil
}

// missed follows a gap in the feed (its subscription was lost and
// renewed). A stream that has sent no event has no place in the log to
// resume from, so it says resync: what happened in the gap is unknown.
func (st *eventStream) missed() error {
	if st.last == "" {
		return st.resync()
	}
	return st.catchUp()
}

func (st *eventStream) resync() error {
	if err := st.write("event: resync\ndata: {}\n\n"); err != nil {
		return err
	}
	st.s.eventsSent.WithLabelValues("resync").Inc()
	return nil
}

// send writes one event, once: the hub and the log may both hand it over.
// The data is the photo as its owner reads it now, named after its status
// now; a photo deleted or retried since (pending again) sends nothing.
func (st *eventStream) send(e events.Event) error {
	if e.UserID != st.user || !events.After(e.ID, st.last) {
		return nil
	}
	if e.Type == events.TypeModeration {
		return st.sendModeration(e)
	}
	if !strings.HasPrefix(e.Type, events.TypeMedia) {
		st.last = e.ID
		return nil
	}
	ctx, cancel := context.WithTimeout(st.c.Request.Context(), st.s.cfg.RequestTimeout)
	defer cancel()
	v, err := st.s.deps.Media.Get(ctx, e.Subject, st.user)
	switch {
	case guidepost.ErrorCode(err) == guidepost.ENOTFOUND:
		st.last = e.ID
		return nil
	case err != nil:
		return err // the client resumes from the event before
	}
	if !v.Owner || !v.Status.Finished() {
		st.last = e.ID
		return nil
	}
	data, err := json.Marshal(toMediaJSON(v))
	if err != nil {
		return err
	}
	name := events.TypeMedia + string(v.Status)
	if err := st.write("id: " + e.ID + "\nevent: " + name + "\ndata: " + string(data) + "\n\n"); err != nil {
		return err
	}
	st.last = e.ID
	st.s.eventsSent.WithLabelValues(name).Inc()
	return nil
}

// recheck ends the stream once its token has expired or its session
// ended (log-out, password change, account deleted).
func (st *eventStream) recheck() error {
	token, _ := strings.CutPrefix(st.c.GetHeader("Authorization"), "Bearer ")
	if t, ok := st.c.Get(streamTokenKey); ok {
		token = t.(string)
	}
	ctx, cancel := context.WithTimeout(st.c.Request.Context(), st.s.cfg.RequestTimeout)
	defer cancel()
	caller, err := st.s.deps.Auth.Authenticate(ctx, strings.TrimSpace(token))
	if err == nil && caller.UserID != st.user {
		err = guidepost.Errorf(guidepost.EUNAUTHORIZED, "the token names another account")
	}
	return err
}

// Why a stream ended, in its last event (`event: end`): the client then
// knows what to do before it reconnects (refresh, sign in, or nothing).
const (
	endTokenExpired   = "token_expired"
	endSessionRevoked = "session_revoked"
	endDraining       = "draining"
)

// endFor sends the end event a failed recheck calls for; a dependency's
// failure says nothing: the client just reconnects.
func (st *eventStream) endFor(err error) {
	switch guidepost.ErrorCode(err) {
	case guidepost.ETOKENEXPIRED:
		st.end(endTokenExpired)
	case guidepost.EUNAUTHORIZED:
		st.end(endSessionRevoked)
	}
}

// end sends the stream's last event, best effort: the stream closes anyway.
func (st *eventStream) end(reason string) {
	if st.write("event: end\ndata: {\"reason\":\""+reason+"\"}\n\n") == nil {
		st.s.eventsSent.WithLabelValues("end").Inc()
	}
}

// write sends and flushes, within streamWriteTimeout.
func (st *eventStream) write(s string) error {
	rc := http.NewResponseController(st.c.Writer)
	rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) // unsupported by test recorders only
	if _, err := st.c.Writer.WriteString(s); err != nil {
		return err
	}
	return rc.Flush()
}

// logEnd notes why a stream ended, when it was not the client leaving or
// the server shutting down.
func (st *eventStream) logEnd(err error) {
	if err != nil && st.c.Request.Context().Err() == nil {
		logger(st.c).InfoContext(st.c.Request.Context(), "event stream ended", "user_id", st.user, "last_event_id", st.last, "err", err)
	}
}

// sendModeration writes the action an event names, as the audit log has
// it, to the author of its target.
func (st *eventStream) sendModeration(e events.Event) error {
	if st.s.deps.Moderation == nil {
		st.last = e.ID
		return nil
	}
	ctx, cancel := context.WithTimeout(st.c.Request.Context(), st.s.cfg.RequestTimeout)
	defer cancel()
	entry, err := st.s.deps.Moderation.Entry(ctx, e.Subject)
	switch {
	case guidepost.ErrorCode(err) == guidepost.ENOTFOUND || err == nil && entry.TargetAuthor != st.user:
		st.last = e.ID
		return nil
	case err != nil:
		return err
	}
	data, err := json.Marshal(toEntryJSON(entry))
	if err != nil {
		return err
	}
	if err := st.write("id: " + e.ID + "\nevent: " + events.TypeModeration + "\ndata: " + string(data) + "\n\n"); err != nil {
		return err
	}
	st.last = e.ID
	st.s.eventsSent.WithLabelValues(events.TypeModeration).Inc()
	return nil
}
