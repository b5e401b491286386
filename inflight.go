package guidepost

import (
	"strings"
	"sync"
)

// InFlight counts requests in flight per key (an account, an address),
// each key under a cap of its own. The counts are this process's, so a cap
// holds without Redis: if a shared limiter has to let requests through
// (Redis slow or down), a flood from one key still cannot fill the slots
// it guards. The zero InFlight is ready to use.
type InFlight struct {
	mu sync.Mutex
	n  map[string]int
}

// Cap is a key and how many requests it may have in flight.
type Cap struct {
	Key string
	Max int
}

// AddrCaps are the caps of a client address as AddrScopes names it, each
// key behind prefix: n for the address, and an IPv6 client's /56 and /48
// at their multiples of n.
func AddrCaps(prefix, addr string, n int) []Cap {
	scopes := AddrScopes(addr)
	caps := make([]Cap, len(scopes))
	for i, sc := range scopes {
		caps[i] = Cap{prefix + sc.Key, n * sc.Mult}
	}
	return caps
}

// Scope names what a key counts, for a refusal's message: "address",
// or an IPv6 client's "/56 network" or "/48 network".
func (k Cap) Scope() string {
	if i := strings.LastIndexByte(k.Key, '/'); i >= 0 && k.Key[i:] != "/64" {
		return k.Key[i:] + " network"
	}
	return "address"
}

// Enter counts one more request under every key, or under none when one
// is at its cap; it returns that key's index, or -1 once counted.
func (t *InFlight) Enter(keys ...Cap) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, k := range keys {
		if t.n[k.Key] >= k.Max {
			return i
		}
	}
	if t.n == nil {
		t.n = map[string]int{}
	}
	for _, k := range keys {
		t.n[k.Key]++
	}
	return -1
}

// Leave gives back what a successful Enter with the same keys counted.
func (t *InFlight) Leave(keys ...Cap) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		if t.n[k.Key]--; t.n[k.Key] <= 0 {
			delete(t.n, k.Key)
		}
	}
}
