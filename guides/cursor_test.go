package guides_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
)

type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }

// pagedStore pages through its items in the nearby order, as a real store
// does with a cursor.
type pagedStore struct{ fakeStore }

func (p *pagedStore) Nearby(_ context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	var out []guides.Item
	for _, it := range p.items {
		if q.After != nil && (it.DistanceM < q.After.DistanceM || it.DistanceM == q.After.DistanceM && it.ID <= q.After.ID) {
			continue
		}
		if len(out) == q.Limit {
			break
		}
		out = append(out, it)
	}
	return out, nil
}

// A cursor carries its depth and age: paging stops after MaxCursorDepth
// guides and an hour-old cursor is refused, both naming the cursor, so a
// deep cursor replayed at will cannot make each request walk far.
func TestCursorsHaveADepthAndAnAge(t *testing.T) {
	ctx := context.Background()
	store := &pagedStore{}
	for i := range guides.MaxCursorDepth + 500 {
		store.items = append(store.items, guides.Item{ID: uuid.NewString(), DistanceM: float64(i)})
	}
	clock := &stepClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	svc := guides.New(guides.Deps{Store: store, Clock: clock}, guides.Config{CursorKey: guides.CursorKey("test secret")})
	p := guides.NearbyParams{Lat: num(37.5), Lng: num(127), Limit: integer(guides.MaxNearbyLimit)}
	pages, seen := 0, 0
	var first string
	for {
		page, err := svc.Nearby(ctx, p)
		if err != nil {
			if !fields(err)["cursor"] {
				t.Fatalf("page %d: %v", pages+1, err)
			}
			break
		}
		pages++
		seen += len(page.Items)
		if first == "" {
			first = page.NextCursor
		}
		p.Cursor = page.NextCursor
		if pages > 2*guides.MaxCursorDepth/guides.MaxNearbyLimit {
			t.Fatal("paging never stopped")
		}
	}
	if seen != guides.MaxCursorDepth {
		t.Fatalf("paged through %d guides, want %d", seen, guides.MaxCursorDepth)
	}

	p.Cursor = first
	clock.now = clock.now.Add(guides.MaxCursorAge - time.Second)
	if _, err := svc.Nearby(ctx, p); err != nil {
		t.Fatalf("a cursor within its age was refused: %v", err)
	}
	clock.now = clock.now.Add(2 * time.Second)
	_, err := svc.Nearby(ctx, p)
	if !fields(err)["cursor"] {
		t.Fatalf("an expired cursor: %v", err)
	}
}
