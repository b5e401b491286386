package cache_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// likesWorld is a database with one guide, a cache over it, and users to
// like it.
type likesWorld struct {
	db    *gsql.DB
	c     started
	svc   *guides.Service
	guide guides.Guide
	here  guides.NearbyQuery
}

func newLikesWorld(t *testing.T, src func(*gsql.Guides) guides.TileSource) likesWorld {
	t.Helper()
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	c := startCacheOn(t, store, src(store), nil, cache.Config{LikePoll: 20 * time.Millisecond})
	svc := guides.New(guides.Deps{Store: c, Clock: clock{}}, guides.Config{CursorKey: []byte("k")})
	lat, lng := 35.1, 128.1
	g, err := svc.Create(ctx, newUser(t, db), guides.Input{Title: "liked", Lat: &lat, Lng: &lng})
	if err != nil {
		t.Fatal(err)
	}
	return likesWorld{db: db, c: c, svc: svc, guide: g, here: guides.NearbyQuery{Lat: lat, Lng: lng, RadiusM: 50, Limit: 10}}
}

// listed is the guide's like count in the cache's answer.
func (w likesWorld) listed(t *testing.T) int64 {
	t.Helper()
	items, err := w.c.Nearby(context.Background(), w.here)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(items, func(it guides.Item) bool { return it.ID == w.guide.ID })
	if i < 0 {
		t.Fatalf("the guide is not in %d items", len(items))
	}
	return items[i].LikeCount
}

// A like and an unlike bring a count back (1, 2, 1), but never the stamp:
// an answer kept under the first 1 was maybe built from the 2 (the
// database read after the stamp), and would be served again as the
// current answer once the count was back.
func TestAStampNeverComesBackWithACount(t *testing.T) {
	ctx := context.Background()
	w := newLikesWorld(t, func(s *gsql.Guides) guides.TileSource { return s })
	row, col := guides.TileRow(w.guide.Lat), guides.TileCol(w.guide.Lng)
	stamp := func() uint64 {
		s, ok := w.c.AreaStamp(row, row, col, col)
		if !ok {
			return 0
		}
		return s
	}
	next := func(what string, after uint64) uint64 {
		t.Helper()
		waitUntil(t, 5*time.Second, what, func() bool { s := stamp(); return s != 0 && s != after })
		return stamp()
	}
	a, b := newUser(t, w.db), newUser(t, w.db)
	waitUntil(t, 5*time.Second, "a stamp", func() bool { return stamp() != 0 })
	s0 := stamp()
	if _, err := w.svc.Like(ctx, w.guide.ID, guides.Liker{UserID: a}); err != nil {
		t.Fatal(err)
	}
	s1 := next("the stamp after a like", s0)
	if _, err := w.svc.Like(ctx, w.guide.ID, guides.Liker{UserID: b}); err != nil {
		t.Fatal(err)
	}
	s2 := next("the stamp after a second like", s1)
	if _, err := w.svc.Unlike(ctx, w.guide.ID, guides.Liker{UserID: b}); err != nil {
		t.Fatal(err)
	}
	s3 := next("the stamp after an unlike", s2)
	if s3 == s1 {
		t.Fatal("the stamp of the count 1 came back after a like and an unlike")
	}
	if n := w.listed(t); n != 1 {
		t.Fatalf("listed with %d likes, want 1", n)
	}
}

// heldPolls holds a like poll, once held is set, until the test lets it
// read.
type heldPolls struct {
	*gsql.Guides
	held    atomic.Bool
	started chan struct{}
	release chan struct{}
}

func (s *heldPolls) LikeCountsSince(ctx context.Context, since time.Time) (map[string]guides.LikeCount, time.Time, error) {
	if s.held.Load() {
		select {
		case s.started <- struct{}{}:
		case <-ctx.Done():
			return nil, time.Time{}, ctx.Err()
		}
		select {
		case <-s.release:
		case <-ctx.Done():
			return nil, time.Time{}, ctx.Err()
		}
	}
	return s.Guides.LikeCountsSince(ctx, since)
}

// A tile whose load began while a like poll was under way may have read
// the guide before a like that the poll then read: the poll's count is
// the newer, and the answer shows it, not the tile's.
func TestATileLoadedDuringAPollYieldsToItsCount(t *testing.T) {
	ctx := context.Background()
	var src *heldPolls
	w := newLikesWorld(t, func(s *gsql.Guides) guides.TileSource {
		src = &heldPolls{Guides: s, started: make(chan struct{}), release: make(chan struct{})}
		return src
	})
	warmUp(t, w.c, func() { w.listed(t) })

	src.held.Store(true)
	within(t, src.started, "a poll to begin")
	// A new guide in the tile: the tile loads again, before the like.
	lat, lng := w.guide.Lat+0.0001, w.guide.Lng
	if _, err := w.svc.Create(ctx, newUser(t, w.db), guides.Input{Title: "neighbour", Lat: &lat, Lng: &lng}); err != nil {
		t.Fatal(err)
	}
	warmUp(t, w.c, func() { w.listed(t) })
	if _, err := w.svc.Like(ctx, w.guide.ID, guides.Liker{UserID: newUser(t, w.db)}); err != nil {
		t.Fatal(err)
	}
	select { // the poll reads the like
	case src.release <- struct{}{}:
	case <-time.After(5 * time.Second):
		t.Fatal("the held poll gave up waiting")
	}
	within(t, src.started, "the poll to end (the next one begins)")
	fromTiles := w.c.value("guidepost_guides_cache_answers_total", "nearby", "cache")
	if n := w.listed(t); n != 1 {
		t.Fatalf("listed with %d likes after the poll read 1", n)
	}
	if w.c.value("guidepost_guides_cache_answers_total", "nearby", "cache") == fromTiles {
		t.Fatal("the answer did not come from the cache's tiles")
	}
}

// within waits for a signal on ch, failing the test instead of hanging it.
func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("waited 5s for %s", what)
	}
}
