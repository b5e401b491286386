package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// Stop joins what Start began, whatever the order of calls: a cache never
// started stops at once, a second Start is refused, stopping twice is fine,
// and a stopped cache answers from the store.
func TestStartStopJoinsAndTolerates(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	rdb := testkit.RedisClient(t, testkit.RedisURL(t, testkit.RedisDBCache))
	if err := cache.New(cache.Deps{Store: store, Source: store, Redis: rdb}, cache.Config{}).Stop(); err != nil {
		t.Fatalf("stopping a cache never started: %v", err)
	}
	c := cache.New(cache.Deps{Store: store, Source: store, Redis: rdb}, cache.Config{LikePoll: 10 * time.Millisecond})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err == nil {
		t.Error("a second Start was accepted")
	}
	waitUntil(t, 10*time.Second, "synced", c.Ready)
	q := guides.NearbyQuery{Lat: 37.5, Lng: 127, RadiusM: 1000, Limit: 5}
	if _, err := c.Nearby(ctx, q); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	if c.Ready() {
		t.Error("a stopped cache still answers from tiles")
	}
	if _, err := c.Nearby(ctx, q); err != nil {
		t.Fatal(err)
	}
}
