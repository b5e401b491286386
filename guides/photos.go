package guides

import (
	"context"
	"slices"
	"strconv"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

// PhotoRef is what a guide write needs to know of a photo it lists.
type PhotoRef struct {
	OwnerID string
	Status  media.Status
}

// PhotoProblems names each id in ids (as media_ids[i]) that author may
// not attach: a photo that is not the author's or does not exist (one
// wording for both, so nobody learns which ids exist), or one that failed
// processing, unless keep lists it (an update may keep a photo the guide
// already has, whatever its state). found holds the photos that exist; an
// id of "" was refused already and is skipped.
func PhotoProblems(author string, ids, keep []string, found map[string]PhotoRef) guidepost.Fields {
	var f guidepost.Fields
	for i, id := range ids {
		if id == "" {
			continue
		}
		field := "media_ids[" + strconv.Itoa(i) + "]"
		m, ok := found[id]
		switch {
		case !ok || m.OwnerID != author:
			f.Add(field, guidepost.FNOTYOURS, "is not a photo of yours")
		case m.Status == media.StatusFailed && !slices.Contains(keep, id):
			f.Add(field, guidepost.FFAILED, "failed processing: its failure (GET /v1/media/{id}) says what will work; attach another photo")
		}
	}
	return f
}

// allProblems answers a write that failed before reaching the store with
// every problem it has, not only those of the first stage that failed: the
// photos it lists are checked too, so a client fixes everything in one
// round. keep is as for PhotoProblems.
func (s *Service) allProblems(ctx context.Context, author string, ids, keep []string, errs ...error) error {
	if ids := checkable(ids); len(ids) > 0 {
		found, err := s.store.PhotoRefs(ctx, ids)
		if err != nil {
			return err
		}
		errs = append(errs, PhotoProblems(author, ids, keep, found).Err())
	}
	return guidepost.JoinFields(errs...)
}

// checkable is ids with the entries checkMedia refuses (not an id, listed
// twice) blanked, positions kept; nil when none is left or the list is
// too long to be checked.
func checkable(ids []string) []string {
	if len(ids) > MaxMedia {
		return nil
	}
	out := make([]string, len(ids))
	seen := map[string]bool{}
	for i, id := range ids {
		if n := normID(id); n != "" && !seen[n] {
			seen[n] = true
			out[i] = n
		}
	}
	if len(seen) == 0 {
		return nil
	}
	return out
}
