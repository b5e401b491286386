package guides

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/idempotency"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/moderation"
)

// Service implements the guide use cases. It never knows whether a list
// came from PostgreSQL or from a cache in front of it: both are a Store.
type Service struct {
	store  Store
	clock  Clock
	cursor cursorSigner
	urls   MediaURLs
	places Places              // optional: location_from_media_id
	keys   *idempotency.Keeper // optional: Idempotency-Key on CreateOnce
	stamps Stamps              // optional: versions of map reads
	blocks Blocks              // optional: a blocker's answers leave out whom they block
}

// Deps are what the use cases consume.
type Deps struct {
	Store Store
	Clock Clock
	URLs  MediaURLs // nil until photos have URLs
	// Places (optional) lets guides be pinned where a photo was taken
	// (location_from_media_id).
	Places Places
	// Keys (optional) makes CreateOnce honour Idempotency-Key; without it
	// a key is refused as unavailable rather than silently ignored.
	Keys *idempotency.Keeper
	// Stamps (optional) let map reads name their version (see
	// NearbyVersion).
	Stamps Stamps
	// Blocks (optional) filters every signed-in answer by whom its viewer
	// blocks.
	Blocks Blocks
}

// Config is the feature's one setting.
type Config struct {
	// CursorKey signs nearby cursors (see CursorKey).
	CursorKey []byte
}

// New wires the use cases.
func New(deps Deps, cfg Config) *Service {
	s := &Service{store: deps.Store, clock: deps.Clock, cursor: cursorSigner{key: cfg.CursorKey}, urls: deps.URLs,
		places: deps.Places, stamps: deps.Stamps, blocks: deps.Blocks}
	if deps.Keys != nil {
		k := deps.Keys.WithDefaults()
		s.keys = &k
	}
	return s
}

// NearbyPage is one page of a radius search.
type NearbyPage struct {
	Items      []Item
	Truncated  bool   // more guides are within the radius than this page: page on, as for a viewport
	NextCursor string // "" on the last page
}

// BBoxPage is a page of a viewport's guides.
type BBoxPage struct {
	Items      []Item
	Truncated  bool   // more guides are inside than this page: page on, zoom in or cluster
	NextCursor string // "" on the last page
}

func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

// Create validates in, stores it and returns it as readers will see it.
func (s *Service) Create(ctx context.Context, authorID string, in Input) (Guide, error) {
	pinErr := s.pin(ctx, authorID, in.LocationFromMediaID, &in.Lat, &in.Lng)
	if pinErr != nil && len(guidepost.ErrorFields(pinErr)) == 0 {
		return Guide{}, pinErr
	}
	g, err := in.validate()
	if err != nil || pinErr != nil {
		return Guide{}, s.allProblems(ctx, authorID, in.MediaIDs, nil, pinErr, err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Guide{}, err
	}
	g.ID, g.AuthorID, g.CreatedAt = id.String(), authorID, s.now()
	if err := s.store.CreateGuide(ctx, g); err != nil {
		return Guide{}, err
	}
	return s.Get(ctx, g.ID, authorID)
}

// Get reads one guide; viewerID ("" for anonymous) decides liked_by_me.
func (s *Service) Get(ctx context.Context, id, viewerID string) (Guide, error) {
	g, err := s.store.Guide(ctx, id, viewerID)
	if err != nil {
		return Guide{}, err
	}
	if set, err := s.blocked(ctx, viewerID); err != nil {
		return Guide{}, err
	} else if set.Has(g.Author.ID) {
		return Guide{}, errHidden
	}
	for i := range g.Media {
		m := &g.Media[i]
		// A guide is public: none of its photos' owner-only fields, even
		// for the author.
		*m = media.Public(*m)
		if s.urls != nil && m.Status == media.StatusReady && !m.Hidden() {
			*m = s.urls.WithURLs(ctx, *m)
		}
	}
	return g, nil
}

var errNotAuthor = guidepost.Errorf(guidepost.EFORBIDDEN, "only the author may change this guide")

// Update applies a patch for the author; anyone else gets EFORBIDDEN and a
// missing guide ENOTFOUND. Invalid values are refused before anything is
// read, and nothing is written unless every check passes.
func (s *Service) Update(ctx context.Context, id, userID string, p Patch) (Guide, error) {
	var pinErr error
	if p.LocationFromMediaID != nil {
		pinErr = s.pin(ctx, userID, *p.LocationFromMediaID, &p.Lat, &p.Lng)
		if pinErr != nil && len(guidepost.ErrorFields(pinErr)) == 0 {
			return Guide{}, pinErr
		}
	}
	norm, err := p.normalized()
	if err != nil || pinErr != nil {
		return Guide{}, s.patchProblems(ctx, id, userID, p, pinErr, err)
	}
	p = norm
	if !p.empty() {
		err = s.store.UpdateGuide(ctx, id, func(d *Draft) error {
			if d.AuthorID != userID {
				return errNotAuthor
			}
			p.apply(d)
			d.UpdatedAt = s.now()
			return nil
		})
	} else {
		// Nothing to change; still only the author gets a 200.
		err = s.store.UpdateGuide(ctx, id, func(d *Draft) error {
			if d.AuthorID != userID {
				return errNotAuthor
			}
			return errNothingToDo
		})
		if errors.Is(err, errNothingToDo) {
			err = nil
		}
	}
	if err != nil {
		return Guide{}, err
	}
	return s.Get(ctx, id, userID)
}

// patchProblems is allProblems for a patch: the photos the guide has may
// stay whatever their state. A guide that cannot be read keeps none.
func (s *Service) patchProblems(ctx context.Context, id, userID string, p Patch, errs ...error) error {
	if p.MediaIDs == nil {
		return guidepost.JoinFields(errs...)
	}
	var keep []string
	if g, err := s.store.Guide(ctx, id, userID); err == nil {
		for _, m := range g.Media {
			keep = append(keep, m.ID)
		}
	}
	return s.allProblems(ctx, userID, *p.MediaIDs, keep, errs...)
}

// errNothingToDo aborts an update transaction that would change nothing.
var errNothingToDo = guidepost.Errorf(guidepost.ECONFLICT, "nothing to update")

var _ moderation.Deleter = (*Service)(nil)

// Delete removes a guide for its author.
func (s *Service) Delete(ctx context.Context, id, userID string) error {
	return s.store.DeleteGuide(ctx, id, func(d Draft) error {
		if d.AuthorID != userID {
			return guidepost.Errorf(guidepost.EFORBIDDEN, "only the author may delete this guide")
		}
		return nil
	})
}

// Like records by's like; a repeat is a success that changes nothing.
// The store refuses a user the author blocks (ErrBlockedLike), and by's
// session when it is set and no longer live.
func (s *Service) Like(ctx context.Context, id string, by Liker) (LikeState, error) {
	return s.store.Like(ctx, id, by, s.now())
}

// Unlike removes by's like; unliking twice is a success.
func (s *Service) Unlike(ctx context.Context, id string, by Liker) (LikeState, error) {
	return s.store.Unlike(ctx, id, by, s.now())
}

// MinePage is a page of the caller's own guides.
type MinePage struct {
	Items      []Item
	NextCursor string // "" on the last page
}

// Mine pages through the caller's own guides, newest first.
func (s *Service) Mine(ctx context.Context, p MineParams) (MinePage, error) {
	q, err := p.query()
	if err != nil {
		return MinePage{}, err
	}
	limit := q.Limit
	q.Limit++
	items, err := s.store.ByAuthor(ctx, q)
	if err != nil {
		return MinePage{}, err
	}
	page := MinePage{Items: items}
	if len(items) > limit {
		page.Items = items[:limit]
		page.NextCursor = guidepost.PageCursor(items[limit-1].ID)
	}
	if err := s.finish(ctx, p.UserID, page.Items); err != nil {
		return MinePage{}, err
	}
	return page, nil
}

// finish fills what a list item shows beyond its cached self: the cover's
// URLs (never cached: presigned ones expire) and, for a signed-in viewer,
// liked_by_me and the exact like count read now (lists are shared by
// every viewer and may lag likes by a second; a viewer's own like must
// show at once).
func (s *Service) finish(ctx context.Context, viewerID string, items []Item) error {
	for i := range items {
		it := &items[i]
		if s.urls != nil && it.Cover.MediaID != "" && it.Cover.Status == media.StatusReady {
			it.CoverURLs = s.urls.CoverURLs(ctx, it.Cover.MediaID, it.Cover.Variants)
		}
	}
	if viewerID == "" || len(items) == 0 {
		return nil
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	states, err := s.store.ViewerStates(ctx, viewerID, ids)
	if err != nil {
		return err
	}
	for i := range items {
		// A guide deleted since the list was read keeps its listed count.
		if st, ok := states[items[i].ID]; ok {
			items[i].LikedByMe, items[i].LikeCount = st.Liked, st.LikeCount
		}
	}
	return nil
}

// RoundDistance is how distances are shown: to the centimetre.
func RoundDistance(m float64) float64 { return math.Round(m*100) / 100 }

// RoundCoordinate is how coordinates are shown: to 7 decimals (about a
// centimetre on the ground), so that an answer never carries float noise
// such as 126.98428200000001.
func RoundCoordinate(v float64) float64 { return math.Round(v*1e7) / 1e7 }
