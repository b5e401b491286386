package api

import "sync"

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
