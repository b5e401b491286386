package cache

import (
	"hash/fnv"
	"testing"
)

// Area stamps add the prefix's hash: every process, old build or new,
// must name the same area the same, or their ETags would disagree.
func TestFNV64aIsHashFNV(t *testing.T) {
	for _, s := range []string{"", "a", "guidepost:guides:tile:v7:0193aaaa-0000-7000-8000-000000000000:"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := fnv64a(s), h.Sum64(); got != want {
			t.Errorf("fnv64a(%q) = %x, hash/fnv says %x", s, got, want)
		}
	}
}
