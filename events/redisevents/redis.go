// Package redisevents is the Redis side of package events: each user's
// short log as a capped Redis stream, the one pub/sub channel every API
// process follows (feed.go) into its events.Hub, and the single-use
// tickets that open a stream without a header (ticket.go).
package redisevents

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/events"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/moderation"
)

// Redis keeps each user's log as a capped Redis stream and publishes every
// event on one channel, both in one script, so an event is in the log
// before any process hears of it and a stream that reads the log after
// hearing of it finds it there.
type Redis struct {
	rdb     redis.UniversalClient
	opt     Config
	log     *slog.Logger
	channel string

	published, publishErrors prometheus.Counter
	received                 prometheus.Counter
	feedUp                   prometheus.Gauge
}

// Deps are what the log uses.
type Deps struct {
	Client     redis.UniversalClient
	Registerer prometheus.Registerer
	Log        *slog.Logger
}

// Config tunes the log; DefaultConfig has every default, and
// New fills a zero field from it.
type Config struct {
	// Window is how long an event stays in its user's log (5 min): a
	// client that reconnects within it misses nothing.
	Window time.Duration
	// MaxLen caps one user's log (256 events), whatever the window.
	MaxLen int
}

// DefaultConfig is the log's configuration with every default.
func DefaultConfig() Config { return Config{Window: 5 * time.Minute, MaxLen: 256} }

var (
	_ media.Notifier      = (*Redis)(nil)
	_ moderation.Notifier = (*Redis)(nil)
)

// New uses the process's one Redis client (a Sentinel set's primary
// included). Pub/sub channels are shared by every database of a server,
// so the channel is named after the client's database.
func New(deps Deps, cfg Config) *Redis {
	def := DefaultConfig()
	guidepost.Default(&cfg.Window, def.Window)
	guidepost.Default(&cfg.MaxLen, def.MaxLen)
	db := 0
	if c, ok := deps.Client.(interface{ Options() *redis.Options }); ok {
		db = c.Options().DB
	}
	r := &Redis{rdb: deps.Client, opt: cfg, log: guidepost.Logger(deps.Log), channel: "guidepost:events:" + strconv.Itoa(db)}
	r.published = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_events_published_total", Help: "Events appended to a user's log and published.",
	})
	r.publishErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_events_publish_errors_total", Help: "Events lost because Redis did not take them.",
	})
	r.received = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "guidepost_events_received_total", Help: "Events this process heard on the channel.",
	})
	r.feedUp = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "guidepost_events_feed_up", Help: "1 while this process follows the event channel.",
	})
	if deps.Registerer != nil {
		deps.Registerer.MustRegister(r.published, r.publishErrors, r.received, r.feedUp)
	}
	return r
}

func logKey(userID string) string { return "guidepost:events:log:" + userID }

// appendScript adds the event to the user's log, trims the log to the
// window (by Redis's clock, which also makes the ids) and the cap, lets it
// expire a window after its last event, and publishes "user id type
// subject". KEYS[1] the log; ARGV: channel, user, type, subject, max
// length, window in ms.
var appendScript = redis.NewScript(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[5], '*', 'type', ARGV[3], 'subject', ARGV[4])
local t = redis.call('TIME')
local oldest = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[6])
redis.call('XTRIM', KEYS[1], 'MINID', string.format('%.0f', oldest))
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PUBLISH', ARGV[1], ARGV[2] .. ' ' .. id .. ' ' .. ARGV[3] .. ' ' .. ARGV[4])
return id
`)

// Publish appends e (its ID is ignored) to its user's log and publishes
// it; it returns the id the log gave it.
func (r *Redis) Publish(ctx context.Context, e events.Event) (string, error) {
	id, err := appendScript.Run(ctx, r.rdb, []string{logKey(e.UserID)},
		r.channel, e.UserID, e.Type, e.Subject, r.opt.MaxLen, r.opt.Window.Milliseconds()).Text()
	if err != nil {
		r.publishErrors.Inc()
		return "", guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the event log is unavailable")
	}
	r.published.Inc()
	return id, nil
}

// PhotoFinished is media.Notifier: the owner's streams hear
// "media.ready" or "media.failed".
func (r *Redis) PhotoFinished(ctx context.Context, ownerID, mediaID string, status media.Status) error {
	_, err := r.Publish(ctx, events.Event{UserID: ownerID, Type: events.TypeMedia + string(status), Subject: mediaID})
	return err
}

// Moderated is moderation.Notifier: the author's streams hear
// "moderation.action" naming the audit log entry.
func (r *Redis) Moderated(ctx context.Context, userID, entryID string) error {
	_, err := r.Publish(ctx, events.Event{UserID: userID, Type: events.TypeModeration, Subject: entryID})
	return err
}

// Since returns the user's logged events after the id after, oldest
// first. complete is false when the log no longer holds after itself:
// events between it and the first returned may have left the window.
func (r *Redis) Since(ctx context.Context, userID, after string) (evs []events.Event, complete bool, err error) {
	if _, _, ok := events.ParseID(after); !ok {
		return nil, false, guidepost.Errorf(guidepost.EINVALID, "event id %q is not <ms>-<seq>", after)
	}
	msgs, err := r.rdb.XRangeN(ctx, logKey(userID), after, "+", int64(r.opt.MaxLen)+1).Result()
	if err != nil {
		return nil, false, guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the event log is unavailable")
	}
	for _, m := range msgs {
		if m.ID == after {
			complete = true
			continue
		}
		typ, _ := m.Values["type"].(string)
		subject, _ := m.Values["subject"].(string)
		evs = append(evs, events.Event{ID: m.ID, UserID: userID, Type: typ, Subject: subject})
	}
	return evs, complete, nil
}

// parseMessage reads what appendScript published.
func parseMessage(payload string) (events.Event, error) {
	f := strings.Fields(payload)
	if len(f) != 4 {
		return events.Event{}, fmt.Errorf("events: malformed message %q", payload)
	}
	if _, _, ok := events.ParseID(f[1]); !ok {
		return events.Event{}, fmt.Errorf("events: malformed id in %q", payload)
	}
	return events.Event{UserID: f[0], ID: f[1], Type: f[2], Subject: f[3]}, nil
}
