package guidepost

import (
	"slices"
	"testing"
)

// A refusal names the scope that was full and its own cap: an IPv6
// client's /56 holds 4 times the per-address cap, and says so.
func TestInFlightRefusalNamesItsScope(t *testing.T) {
	keys := AddrCaps("a:", "2001:db8:7:1::/64", 2)
	var tl InFlight
	// Fill the /56 from its other /64s: 8 in flight, none from this /64.
	for i := range 2 * Mult56 {
		other := []Cap{{"a:2001:db8:7:" + string(rune('a'+i)) + "::/64", 2}, keys[1], keys[2]}
		if tl.Enter(other...) >= 0 {
			t.Fatalf("request %d of the /56 refused early", i)
		}
	}
	i := tl.Enter(keys...)
	if i != 1 || keys[i].Scope() != "/56 network" || keys[i].Max != 2*Mult56 {
		t.Fatalf("refused at key %d (%v), want the /56 with cap %d", i, keys, 2*Mult56)
	}
	if got := (Cap{"a:2001:db8:7:1::/64", 2}).Scope(); got != "address" {
		t.Errorf("a /64 is %q, want address", got)
	}
	if got := (Cap{"a:203.0.113.5", 2}).Scope(); got != "address" {
		t.Errorf("an IPv4 address is %q, want address", got)
	}
	if got := keys[2].Scope(); got != "/48 network" {
		t.Errorf("the /48 is %q", got)
	}
}

// Leave gives back exactly what Enter counted: a key at its cap takes one
// more once one of its requests has left, and a refused Enter counts
// nothing under the keys that had room.
func TestInFlightLeaveGivesBack(t *testing.T) {
	var tl InFlight
	user, addr := Cap{"u:1", 1}, Cap{"a:203.0.113.5", 2}
	if tl.Enter(user, addr) != -1 {
		t.Fatal("first refused")
	}
	if tl.Enter(user, addr) != 0 {
		t.Fatal("the account's second was not refused at the account")
	}
	if tl.Enter(Cap{"u:2", 1}, addr) != -1 {
		t.Fatal("the refused request counted under the address")
	}
	tl.Leave(user, addr)
	if tl.Enter(user, addr) != -1 {
		t.Fatal("a key stayed full after Leave")
	}
	if got := AddrCaps("", "198.51.100.7", 3); !slices.Equal(got, []Cap{{"198.51.100.7", 3}}) {
		t.Errorf("AddrCaps of an IPv4 address: %v", got)
	}
}
