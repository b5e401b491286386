// Package events tells users, on any API process, what happened to their
// data while they were connected: a photo turning ready or failed. A
// process that changes something appends an event to the user's short log
// in Redis and publishes it on one channel; every API process follows the
// channel with one subscription and hands each event to the streams its
// users hold open (Hub). A stream that reconnects, or that may have missed
// events (a slow client, a broken subscription), reads the log from the
// last event it sent. This package holds the events and the Hub; the log,
// the channel and the feed are in events/redisevents.
package events

import (
	"strconv"
	"strings"
)

// Event is one thing that happened to a user's data.
type Event struct {
	// ID is the event's place in its user's log, "<ms>-<seq>": ids of one
	// user only increase (Redis stream ids), so a client resumes after the
	// last one it saw.
	ID      string
	UserID  string
	Type    string // what happened, e.g. "media.ready"
	Subject string // the id of what it happened to, e.g. the photo's
}

// TypeMedia is the prefix of a photo's events: "media.ready", "media.failed".
const TypeMedia = "media."

// TypeModeration is the event of a moderation action on the user's
// content or account; its Subject is the audit log entry.
const TypeModeration = "moderation.action"

// ParseID reads an event id; ok is false for anything but "<ms>-<seq>".
func ParseID(id string) (ms, seq uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	return ms, seq, err1 == nil && err2 == nil
}

// After reports whether event id a comes after b in a log; every id comes
// after "" and ids that do not parse come after nothing.
func After(a, b string) bool {
	am, as, ok := ParseID(a)
	if !ok {
		return false
	}
	if b == "" {
		return true
	}
	bm, bs, ok := ParseID(b)
	if !ok {
		return true
	}
	return am > bm || am == bm && as > bs
}
