package api

import (
	"strings"
	"sync"
)

// tally counts requests in flight per key (an account, an address), each
// key under a cap of its own. The counts are this process's.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

// capped is a key and how many requests it may have in flight.
type capped struct {
	key string
	cap int
}

// scope names what a key counts, for a refusal's message: "address",
// or an IPv6 client's "/56 network" or "/48 network".
func (k capped) scope() string {
	if i := strings.LastIndexByte(k.key, '/'); i >= 0 && k.key[i:] != "/64" {
		return k.key[i:] + " network"
	}
	return "address"
}

// enter counts one more request under every key, or under none when one
// is at its cap; it returns that key's index, or -1 once counted.
func (t *tally) enter(keys ...capped) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, k := range keys {
		if t.n[k.key] >= k.cap {
			return i
		}
	}
	if t.n == nil {
		t.n = map[string]int{}
	}
	for _, k := range keys {
		t.n[k.key]++
	}
	return -1
}

// leave gives back what a successful enter with the same keys counted.
func (t *tally) leave(keys ...capped) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		if t.n[k.key]--; t.n[k.key] <= 0 {
			delete(t.n, k.key)
		}
	}
}
