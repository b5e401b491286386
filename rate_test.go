package guidepost

import (
	"slices"
	"testing"
)

// An IPv6 /64 is counted under itself, its /56 and its /48; an IPv4
// address and an account under themselves alone.
func TestAddrScopes(t *testing.T) {
	for addr, want := range map[string][]Scope{
		"2001:db8:1:2::/64":    {{"2001:db8:1:2::/64", 1}, {"2001:db8:1::/56", Mult56}, {"2001:db8:1::/48", Mult48}},
		"2001:db8:1:2ff::/64":  {{"2001:db8:1:2ff::/64", 1}, {"2001:db8:1:200::/56", Mult56}, {"2001:db8:1::/48", Mult48}},
		"198.51.100.7":         {{"198.51.100.7", 1}},
		"0190b7c4-0000-7000-8": {{"0190b7c4-0000-7000-8", 1}},
		"2001:db8::1/128":      {{"2001:db8::1/128", 1}},
	} {
		if got := AddrScopes(addr); !slices.Equal(got, want) {
			t.Errorf("AddrScopes(%q) = %v, want %v", addr, got, want)
		}
	}
	if r := (Rate{Name: "x", Count: 3}).Times(Mult48); r.Count != 3*Mult48 || r.Name != "x" {
		t.Errorf("Times: %+v", r)
	}
}
