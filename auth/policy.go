package auth

import "time"

// SessionPolicy is how long sessions live and what a refresh forgives.
type SessionPolicy struct {
	// TTL is how long a session lasts unused (REFRESH_TTL): each refresh
	// moves its end to TTL from then.
	TTL time.Duration
	// MaxAge is the absolute ceiling (SESSION_MAX_AGE): however often it
	// is used, a session ends MaxAge after it began, so a token stolen
	// once cannot be kept alive for ever by refreshing it.
	MaxAge time.Duration
	// Grace is how long a used refresh token may be presented again
	// (REFRESH_GRACE): a phone that lost the answer to its refresh retries
	// with the same token and gets a working pair, not a revoked session.
	Grace time.Duration
}

// Renewal is what one refresh asks of the store.
type Renewal struct {
	Now    time.Time
	Grace  time.Duration
	TTL    time.Duration
	MaxAge time.Duration
}

func (s *Service) renewal() Renewal {
	return Renewal{Now: s.now(), Grace: s.sessions.Grace, TTL: s.sessions.TTL, MaxAge: s.sessions.MaxAge}
}

// Until is when a session that began at created ends if used now: TTL from
// now, but never past the ceiling.
func (r Renewal) Until(created time.Time) time.Time {
	end, ceiling := r.Now.Add(r.TTL), created.Add(r.MaxAge)
	if ceiling.Before(end) {
		return ceiling
	}
	return end
}

// Retry reports whether a token used at used, presented again now, is a
// retry within the grace rather than a second holder.
func (r Renewal) Retry(used time.Time) bool {
	return r.Now.Sub(used) < r.Grace
}
