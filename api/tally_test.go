package api

import (
	"testing"

	"github.com/guidepost/guidepost"
)

// A refusal names the scope that was full and its own cap: an IPv6
// client's /56 holds 4 times the per-address cap, and says so.
func TestTallyRefusalNamesItsScope(t *testing.T) {
	var keys []capped
	for _, sc := range guidepost.AddrScopes("2001:db8:7:1::/64") {
		keys = append(keys, capped{"a:" + sc.Key, 2 * sc.Mult})
	}
	var tl tally
	// Fill the /56 from its other /64s: 8 in flight, none from this /64.
	for i := range 2 * guidepost.Mult56 {
		other := []capped{{"a:2001:db8:7:" + string(rune('a'+i)) + "::/64", 2}, keys[1], keys[2]}
		if tl.enter(other...) >= 0 {
			t.Fatalf("request %d of the /56 refused early", i)
		}
	}
	i := tl.enter(keys...)
	if i != 1 || keys[i].scope() != "/56 network" || keys[i].cap != 2*guidepost.Mult56 {
		t.Fatalf("refused at key %d (%v), want the /56 with cap %d", i, keys, 2*guidepost.Mult56)
	}
	if got := (capped{"a:2001:db8:7:1::/64", 2}).scope(); got != "address" {
		t.Errorf("a /64 is %q, want address", got)
	}
	if got := (capped{"a:203.0.113.5", 2}).scope(); got != "address" {
		t.Errorf("an IPv4 address is %q, want address", got)
	}
	if got := keys[2].scope(); got != "/48 network" {
		t.Errorf("the /48 is %q", got)
	}
}
