package guides

import (
	"context"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/blocks"
)

// Blocks tells whom a viewer blocks, fresh on every process (the block
// feature's cache implements it). Lists, viewports, clusterings and
// guides are shared by every viewer in the map caches; the service takes
// a blocker's blocked authors out of the shared answer, per request.
type Blocks interface {
	Of(ctx context.Context, userID string) (blocks.Set, error)
	// Peek is Of from memory alone; false when it would need a read.
	Peek(userID string) (blocks.Set, bool)
}

// blocked is the viewer's Set: empty for anonymous viewers and without
// blocks wired.
func (s *Service) blocked(ctx context.Context, viewerID string) (blocks.Set, error) {
	if s.blocks == nil || viewerID == "" {
		return blocks.Set{}, nil
	}
	return s.blocks.Of(ctx, viewerID)
}

// maxRefill bounds one refill read: a page that lost items to blocks is
// read on from its last item, each read 4× the last, up to this.
const maxRefill = 1000

// nearbyVisible reads q.Limit items the viewer may see, or all there are:
// the store's answer as it is for a viewer who blocks nobody, else read
// on past the blocked authors' guides until the page is full.
func (s *Service) nearbyVisible(ctx context.Context, q NearbyQuery, set blocks.Set) ([]Item, error) {
	want := q.Limit
	var out []Item
	for {
		items, err := s.store.Nearby(ctx, q)
		if err != nil || set.Len() == 0 {
			return items, err
		}
		out = appendVisible(out, items, set)
		if len(out) >= want || len(items) < q.Limit {
			return out[:min(len(out), want)], nil
		}
		last := items[len(items)-1]
		q.After = &Position{DistanceM: last.DistanceM, ID: last.ID}
		q.Limit = min(4*q.Limit, max(maxRefill, want))
	}
}

// bboxVisible is nearbyVisible for a viewport: q.Limit visible items,
// newest first, and whether more visible ones are inside.
func (s *Service) bboxVisible(ctx context.Context, q BBoxQuery, set blocks.Set) ([]Item, bool, error) {
	if set.Len() == 0 {
		return s.store.InBBox(ctx, q)
	}
	limit := q.Limit
	want := limit + 1 // one more tells whether the viewport holds more
	q.Limit = want
	var out []Item
	for {
		items, more, err := s.store.InBBox(ctx, q)
		if err != nil {
			return nil, false, err
		}
		out = appendVisible(out, items, set)
		if len(out) >= want || !more || len(items) == 0 {
			break
		}
		q.Before = items[len(items)-1].ID
		q.Limit = min(4*q.Limit, max(maxRefill, want))
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

func appendVisible(out, items []Item, set blocks.Set) []Item {
	for _, it := range items {
		if !set.Has(it.Author.ID) {
			out = append(out, it)
		}
	}
	return out
}

// clustersVisible counts a blocker's clusters without the blocked
// authors' guides. The shared clustering is exact for them unless one of
// those authors has a guide in the tiles it counts: only then is it
// counted again, by the store, without them.
func (s *Service) clustersVisible(ctx context.Context, q ClusterQuery, set blocks.Set) ([]Cluster, error) {
	if set.Len() > 0 {
		hit, err := s.store.AuthorsIn(ctx, set.IDs(), q)
		if err != nil {
			return nil, err
		}
		if hit {
			return s.store.ClustersWithout(ctx, q, set.IDs())
		}
	}
	return s.store.Clusters(ctx, q)
}

// viewerVersion is the part of a map read's version that its viewer
// decides: "" for anonymous viewers and for viewers who block nobody
// (they share everyone's answer), ok false when the viewer's Set is not
// in memory (the read gets no version). A blocker's answer is named by
// whom they block.
func (s *Service) viewerVersion(viewerID string) (part string, ok bool) {
	if viewerID == "" || s.blocks == nil {
		return "", true
	}
	set, ok := s.blocks.Peek(viewerID)
	if !ok || set.Len() == 0 {
		return "", ok
	}
	b := make([]byte, 0, 37*set.Len())
	for _, id := range set.IDs() {
		b = append(b, id...)
		b = append(b, ',')
	}
	return string(b), true
}

// ErrBlockedLike is the store's answer to a like from a user the guide's
// author blocks.
var ErrBlockedLike = guidepost.Errorf(guidepost.EFORBIDDEN, "the author of this guide has blocked you: you cannot like their guides")

// errHidden is what a blocker reads of a blocked author's guide: the
// same as for a guide that does not exist.
var errHidden = guidepost.Errorf(guidepost.ENOTFOUND, "guide not found")
