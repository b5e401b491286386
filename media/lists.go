package media

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
)

// Page sizes of the photo lists.
const (
	DefaultMineLimit = 20
	MaxMineLimit     = 100
	// MaxBatch is how many photos one GET /v1/media?ids= asks for: a
	// screen of thumbnails.
	MaxBatch = 100
)

// MinePage is a page of an owner's photos, newest first, as the owner sees
// them.
type MinePage struct {
	Items      []View
	NextCursor string // "" on the last page
}

// Mine pages through ownerID's photos, newest first; cursor is the
// previous page's NextCursor.
func (s *Service) Mine(ctx context.Context, ownerID string, limit *int, cursor string) (MinePage, error) {
	n, before, err := guidepost.CheckPage(limit, cursor, DefaultMineLimit, MaxMineLimit)
	if err != nil {
		return MinePage{}, err
	}
	rows, err := s.deps.Store.ByOwner(ctx, ownerID, before, n+1)
	if err != nil {
		return MinePage{}, err
	}
	var page MinePage
	if len(rows) > n {
		rows = rows[:n]
		page.NextCursor = guidepost.PageCursor(rows[n-1].ID)
	}
	page.Items = make([]View, len(rows))
	for i, m := range rows {
		if page.Items[i], err = s.view(ctx, m, ownerID); err != nil {
			return MinePage{}, err
		}
	}
	return page, nil
}

// Batch is the answer to several photos at once.
type Batch struct {
	Items    []View   // in the order asked, each as the viewer may see it
	NotFound []string // asked for and not found (or deleted)
}

// GetMany reads up to MaxBatch photos at once, each as GET of it would show
// it to viewerID (owner-only fields for the owner alone). An id asked twice
// is answered once.
func (s *Service) GetMany(ctx context.Context, ids []string, viewerID string) (Batch, error) {
	ids, err := checkIDs(ids)
	if err != nil {
		return Batch{}, err
	}
	rows, err := s.deps.Store.GetMany(ctx, ids)
	if err != nil {
		return Batch{}, err
	}
	set, err := s.blocked(ctx, viewerID)
	if err != nil {
		return Batch{}, err
	}
	byID := make(map[string]Media, len(rows))
	for _, m := range rows {
		if !set.Has(m.OwnerID) {
			byID[m.ID] = m
		}
	}
	b := Batch{Items: make([]View, 0, len(rows)), NotFound: []string{}}
	for _, id := range ids {
		m, ok := byID[id]
		if !ok || !visibleTo(m, viewerID) {
			b.NotFound = append(b.NotFound, id)
			continue
		}
		v, err := s.view(ctx, m, viewerID)
		if err != nil {
			return Batch{}, err
		}
		b.Items = append(b.Items, v)
	}
	return b, nil
}

// checkIDs wants 1 to MaxBatch photo ids, naming each bad one as ids[i];
// repeats are dropped.
func checkIDs(ids []string) ([]string, error) {
	var f guidepost.Fields
	switch {
	case len(ids) == 0:
		f.Add("ids", guidepost.FREQUIRED, "is required: photo ids separated by commas")
	case len(ids) > MaxBatch:
		f.Add("ids", guidepost.FTOOMANY, fmt.Sprintf("must list at most %d photos", MaxBatch))
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		u, err := uuid.Parse(id)
		if err != nil || len(id) != 36 {
			f.Add("ids["+strconv.Itoa(i)+"]", guidepost.FINVALIDFORMAT, "is not a media id")
			continue
		}
		if norm := u.String(); !seen[norm] {
			seen[norm] = true
			out = append(out, norm)
		}
	}
	return out, f.Err()
}
