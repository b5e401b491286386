package redisevents

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost/events"
)

// Follow timings: a silent subscription is pinged, and one that answers
// nothing is dropped for a new one (a half-open connection would otherwise
// wait for ever); receives time out so that ctx is seen within a tick.
const (
	feedTick      = 500 * time.Millisecond
	feedPingAfter = 5 * time.Second
	feedDeadAfter = 15 * time.Second
	feedRetry     = time.Second
)

// Run follows the event channel until ctx ends, with one subscription for
// the process, handing each event to hub. Whenever the subscription is
// (re)confirmed, after a Redis restart, a failover or a cut, the hub is
// told that events may have been missed: its streams read their logs.
func (r *Redis) Run(ctx context.Context, hub *events.Hub) {
	var lastLog time.Time
	for ctx.Err() == nil {
		err := r.follow(ctx, hub)
		r.feedUp.Set(0)
		if ctx.Err() != nil {
			return
		}
		if time.Since(lastLog) > time.Minute {
			r.log.Warn("events: lost the event channel; streams catch up from their logs once it is back", "err", err)
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
		case <-time.After(feedRetry):
		}
	}
}

// follow runs one subscription until it fails or ctx ends.
func (r *Redis) follow(ctx context.Context, hub *events.Hub) error {
	ps := r.rdb.Subscribe(ctx, r.channel)
	defer ps.Close()
	heard := time.Now()
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, feedTick)
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				return err
			}
			switch silent := time.Since(heard); {
			case silent > feedDeadAfter:
				return errors.New("events: the channel answers no ping")
			case silent > feedPingAfter:
				ps.Ping(ctx) // a failure shows on the next receive
			}
			continue
		}
		heard = time.Now()
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				r.feedUp.Set(1)
				hub.Missed()
			}
		case *redis.Message:
			r.received.Inc()
			e, err := parseMessage(m.Payload)
			if err != nil {
				r.log.Warn("events: skipped a message", "err", err)
				continue
			}
			hub.Publish(e)
		}
	}
	return ctx.Err()
}
