package guides

import (
	"context"

	"github.com/guidepost/guidepost"
)

// Places tells where a user's photo was taken; *media.Service implements
// it. Its errors name the field location_from_media_id.
type Places interface {
	PlaceOf(ctx context.Context, mediaID, userID string) (lat, lng float64, err error)
}

// pin fills lat and lng from the photo mediaID names, when it is set.
func (s *Service) pin(ctx context.Context, userID, mediaID string, lat, lng **float64) error {
	if mediaID == "" {
		return nil
	}
	if *lat != nil || *lng != nil {
		return guidepost.Invalid(guidepost.Field("location_from_media_id", guidepost.FCONFLICT, "cannot be sent with lat and lng: send one or the other"))
	}
	if s.places == nil {
		return guidepost.Errorf(guidepost.EUNAVAILABLE, "photos are not enabled on this server")
	}
	la, ln, err := s.places.PlaceOf(ctx, mediaID, userID)
	if err != nil {
		return err
	}
	*lat, *lng = &la, &ln
	return nil
}
