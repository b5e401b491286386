package media

import (
	"context"

	"github.com/guidepost/guidepost"
)

// placeField is the guide field that asks to pin a guide where a photo was
// taken.
const placeField = "location_from_media_id"

func unprocessablePlace(code, message string) error {
	return &guidepost.Error{Code: guidepost.EUNPROCESSABLE, Message: placeField + ": " + message,
		Fields: []guidepost.FieldError{{Field: placeField, Code: code, Message: message}}}
}

// PlaceOf returns where userID's photo was taken, for pinning a guide
// there. Only the owner may use a photo's place; the place is read from the
// header when the upload is accepted, so a photo still pending has it. A
// photo without GPS in its metadata is EUNPROCESSABLE naming the field.
func (s *Service) PlaceOf(ctx context.Context, mediaID, userID string) (lat, lng float64, err error) {
	m, err := s.deps.Store.Get(ctx, mediaID)
	switch {
	case guidepost.ErrorCode(err) == guidepost.ENOTFOUND || err == nil && m.OwnerID != userID:
		return 0, 0, unprocessablePlace(guidepost.FNOTYOURS, "is not one of your photos")
	case err != nil:
		return 0, 0, err
	case !m.Capture.HasGPS:
		return 0, 0, unprocessablePlace(guidepost.FNOLOCATION, "the photo has no location in its metadata")
	}
	return m.Capture.Lat, m.Capture.Lng, nil
}
