package redisevents

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
)

// A ticket opens one event stream for a client that cannot send a header
// (a browser's EventSource): POST /v1/events/ticket trades the caller's
// access token for one, and GET /v1/events?ticket= trades it back, once.
// The token itself is what the ticket holds, so the stream lives, and is
// rechecked, exactly as if the header had been sent. Redis keeps only the
// ticket's hash as the key, and the entry for TicketTTL at most.

// TicketTTL is how long a ticket waits to be used.
const TicketTTL = time.Minute

const ticketPrefix = "gpt_"

func ticketKey(ticket string) string {
	sum := sha256.Sum256([]byte(ticket))
	return "guidepost:events:ticket:" + hex.EncodeToString(sum[:])
}

// IssueTicket stores accessToken under a new single-use ticket.
func (r *Redis) IssueTicket(ctx context.Context, accessToken string) (ticket string, expires time.Time, err error) {
	ticket = ticketPrefix + rand.Text() // 130 random bits
	expires = time.Now().Add(TicketTTL)
	if err := r.rdb.Set(ctx, ticketKey(ticket), accessToken, TicketTTL).Err(); err != nil {
		return "", time.Time{}, guidepost.Wrap(guidepost.EUNAVAILABLE, err, "event tickets are unavailable; retry shortly, or send the token as a header")
	}
	return ticket, expires, nil
}

// RedeemTicket returns the access token a ticket holds and forgets it: a
// second use, or one past TicketTTL, is EUNAUTHORIZED.
func (r *Redis) RedeemTicket(ctx context.Context, ticket string) (string, error) {
	if !strings.HasPrefix(ticket, ticketPrefix) {
		return "", errTicket
	}
	token, err := r.rdb.GetDel(ctx, ticketKey(ticket)).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return "", errTicket
	case err != nil:
		return "", guidepost.Wrap(guidepost.EUNAVAILABLE, err, "event tickets are unavailable; retry shortly")
	}
	return token, nil
}

var errTicket = guidepost.Errorf(guidepost.EUNAUTHORIZED, "the ticket is unknown, used or expired: get a new one (POST /v1/events/ticket)")
