package auth

import (
	"sync"
	"time"
)

// Bounds of the accounts Authenticate remembers.
const (
	knownUserTTL = time.Minute
	maxKnown     = 100_000
)

// knownUsers remembers ids of accounts that existed when last looked up.
// It is bounded: when full it starts over, which costs one lookup per
// active user, never memory.
type knownUsers struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func (k *knownUsers) has(id string, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	at, ok := k.seen[id]
	return ok && now.Sub(at) < knownUserTTL
}

func (k *knownUsers) add(id string, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.seen) >= maxKnown {
		clear(k.seen)
	}
	k.seen[id] = now
}
