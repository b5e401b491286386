package media

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Every id made inside a window lies under one of its prefixes, and the
// prefixes stay few and fine: a minute's window is a couple of 65-s slots.
func TestIDPrefixesCoverTheWindow(t *testing.T) {
	now := time.Now()
	for _, window := range []time.Duration{time.Minute, 3 * time.Hour, 72 * time.Hour, 400 * 24 * time.Hour} {
		prefixes := orphanPrefixes(now.Add(-window), now)
		if len(prefixes) > 2*64 || window == time.Minute && len(prefixes) > 4 {
			t.Fatalf("%s: %d prefixes", window, len(prefixes))
		}
		for _, at := range []time.Time{now.Add(-window), now.Add(-window / 2), now} {
			id := uuidAt(t, at)
			for _, key := range objectKeys(id) {
				if !covered(prefixes, key) {
					t.Fatalf("%s: %s (made %s) is under none of %v", window, key, at, prefixes)
				}
				if got, born, ok := idOfKey(key); !ok || got != id || born.UnixMilli() != at.UnixMilli() {
					t.Fatalf("idOfKey(%s) = %s, %s, %v", key, got, born, ok)
				}
			}
		}
	}
}

func covered(prefixes []string, key string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// uuidAt makes a UUIDv7 whose timestamp is at.
func uuidAt(t *testing.T, at time.Time) string {
	u := uuid.Must(uuid.NewV7())
	ms := uint64(at.UnixMilli())
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	return u.String()
}
