package cache_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/blocks"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// newUser is a guest account, for a test that needs one more person.
func newUser(t *testing.T, db *gsql.DB) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(db).CreateUser(context.Background(), auth.User{ID: id, DisplayName: "u", Guest: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return id
}

// runBlocks starts a process's block sets over db and waits until they
// follow the feed; they stop with the test.
func runBlocks(t *testing.T, db *gsql.DB, reg prometheus.Registerer) *cache.Blocks {
	t.Helper()
	store := gsql.NewBlocks(db)
	c := cache.NewBlocks(cache.BlocksDeps{Store: store, Feed: store, Registerer: reg}, cache.BlocksConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitUntil(t, 15*time.Second, "the block feed", c.Ready)
	return c
}

func has(t *testing.T, c *cache.Blocks, blocker, blocked string) bool {
	t.Helper()
	s, err := c.Of(context.Background(), blocker)
	if err != nil {
		t.Fatal(err)
	}
	return s.Has(blocked)
}

// A block on one process is in the writer's sets at once and in another
// process's within a second, both sides of it; so is an unblock.
func TestBlockSetsFreshAcrossProcesses(t *testing.T) {
	db := testkit.DB(t)
	p1, p2 := runBlocks(t, db, nil), runBlocks(t, db, nil)
	a, b := newUser(t, db), newUser(t, db)
	ctx := context.Background()
	for _, c := range []*cache.Blocks{p1, p2} { // kept, as not blocking anyone
		if has(t, c, a, b) {
			t.Fatal("blocked before the block")
		}
		if s, _ := c.Of(ctx, b); s.BlockedBySomeone() {
			t.Fatal("b blocked before the block")
		}
	}
	if _, err := p1.Block(ctx, a, b, uuid.Must(uuid.NewV7()).String(), time.Now(), 10); err != nil {
		t.Fatal(err)
	}
	if !has(t, p1, a, b) {
		t.Fatal("the writing process does not see its block at once")
	}
	waitUntil(t, time.Second, "the block on the other process", func() bool {
		s, _ := p2.Of(ctx, b)
		return has(t, p2, a, b) && s.BlockedBySomeone()
	})
	if err := p2.Unblock(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	if has(t, p2, a, b) {
		t.Fatal("the writing process does not see its unblock at once")
	}
	waitUntil(t, time.Second, "the unblock on the other process", func() bool { return !has(t, p1, a, b) })
}

// A user who blocks nobody costs one read, once: every later answer takes
// their set from memory. The time per lookup is logged.
func TestBlockSetsCostNothingWithoutBlocks(t *testing.T) {
	db := testkit.DB(t)
	reg := prometheus.NewRegistry()
	c := runBlocks(t, db, reg)
	u := newUser(t, db)
	ctx := context.Background()
	const n = 100_000
	start := time.Now()
	for range n {
		s, err := c.Of(ctx, u)
		if err != nil || s.Len() != 0 {
			t.Fatal(s, err)
		}
	}
	t.Logf("a set of a user who blocks nobody: %s per lookup", time.Since(start)/n)
	if got := counterValue(t, reg, "guidepost_block_sets_loads_total"); got != 1 {
		t.Fatalf("%v reads of the set for %d answers, want 1", got, n)
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// Blocks and unblocks racing reads of the same sets, on two processes,
// leave every set equal to the database's once the feed has caught up.
func TestBlockSetsRace(t *testing.T) {
	db := testkit.DB(t)
	p1, p2 := runBlocks(t, db, nil), runBlocks(t, db, nil)
	a := newUser(t, db)
	others := []string{newUser(t, db), newUser(t, db), newUser(t, db)}
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 60 {
		c := []*cache.Blocks{p1, p2}[i%2]
		o := others[i%len(others)]
		wg.Go(func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = c.Block(ctx, a, o, uuid.Must(uuid.NewV7()).String(), time.Now(), 10)
			case 1:
				err = c.Unblock(ctx, a, o)
			default:
				_, err = c.Of(ctx, a)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	truth, err := gsql.NewBlocks(db).Of(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*cache.Blocks{p1, p2} {
		waitUntil(t, 5*time.Second, "the sets to agree with the database", func() bool {
			s, err := c.Of(ctx, a)
			return err == nil && slices.Equal(s.IDs(), truth.IDs())
		})
	}
}

var _ blocks.Store = (*cache.Blocks)(nil)
