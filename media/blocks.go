package media

import (
	"context"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/blocks"
)

// Blocks tells whom a viewer blocks, fresh on every process (the block
// feature's cache implements it).
type Blocks interface {
	Of(ctx context.Context, userID string) (blocks.Set, error)
}

// blocked is the viewer's Set: empty for anonymous viewers and without
// blocks wired. A photo of a user the viewer blocks is answered as one
// that does not exist.
func (s *Service) blocked(ctx context.Context, viewerID string) (blocks.Set, error) {
	if s.deps.Blocks == nil || viewerID == "" {
		return blocks.Set{}, nil
	}
	return s.deps.Blocks.Of(ctx, viewerID)
}

var errHiddenPhoto = guidepost.Errorf(guidepost.ENOTFOUND, "media not found")
