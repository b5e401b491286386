package media

import (
	"context"
	"strings"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// VariantPathPrefix starts the short, stable API path of a variant,
// /v1/media/{id}/{kind}.{ext} (api registers the route under it). A list
// carries that path instead of a second presigned URL: about 50 bytes that
// never change, where a signature is ~400 bytes that no encoding shares.
const VariantPathPrefix = "/v1/media/"

// VariantPath is the API path of a photo's variant; its file name is the
// one the variant's object has (marker.jpg, small.webp), so a client
// swaps the last segment to reach another variant, the same way under a
// public base.
func VariantPath(id, kind string, f photo.Encoding) string {
	return VariantPathPrefix + id + "/" + kind + "." + f.Ext()
}

// redirectMargin is taken off what a presigned URL has left when telling a
// client how long it may reuse a redirect to it: a redirect reused at the
// last moment still leads to a URL good for the download that follows.
const redirectMargin = 5 * time.Minute

// VariantLink is where a variant's stable path leads now.
type VariantLink struct {
	URL string
	// MaxAge is how long a client may reuse the redirect: the presigned
	// URL's remaining life less redirectMargin, or a StableURLWindow under
	// a public base, after which visibility is checked again.
	MaxAge time.Duration
}

// VariantURL is the URL of one variant ("marker.jpg", "small.webp") of a
// photo as viewerID ("" for anonymous) may fetch it, under the rules of
// Get and GET /v1/media?ids=: a hidden photo (a moderator's hide or its
// owner's suspension) and a photo of someone the viewer blocks are not
// found, as one that does not exist. A hidden photo is not found for its
// owner either: view gives no one its derivatives' URLs. As everywhere, a
// block hides the blocked from the blocker only: the blocker's photos stay
// readable, as they are anonymously.
func (s *Service) VariantURL(ctx context.Context, viewerID, id, variant string) (VariantLink, error) {
	kind, f, err := parseVariant(variant)
	if err != nil {
		return VariantLink{}, err
	}
	m, err := s.readable(ctx, id, viewerID, false)
	if err != nil {
		return VariantLink{}, err
	}
	if err := readyForVariants(m); err != nil {
		return VariantLink{}, err
	}
	for _, v := range variantsOf(m) {
		if v.Kind == kind && v.Format == f {
			return s.linkTo(ctx, v.Key)
		}
	}
	return VariantLink{}, &guidepost.Error{Code: guidepost.ENOTFOUND, Message: "the photo has no " + variant,
		Fields: []guidepost.FieldError{guidepost.Field("variant", guidepost.FNOTFOUND,
			"is not stored for this photo: its cover's urls.formats, or GET /v1/media/{id}, list the variants it has")}}
}

// linkTo presigns key for the current window (or names it under the
// public base) and says how long the redirect to it may be reused.
func (s *Service) linkTo(ctx context.Context, key string) (VariantLink, error) {
	now := s.deps.Clock.Now().UTC()
	if s.cfg.PublicBase != "" {
		return VariantLink{URL: s.cfg.PublicBase + "/" + key, MaxAge: StableURLWindow}, nil
	}
	u, until, err := s.presignStable(ctx, key, now)
	if err != nil {
		return VariantLink{}, err
	}
	return VariantLink{URL: u, MaxAge: until.Sub(now) - redirectMargin}, nil
}

// readyForVariants refuses a photo with no derivatives, naming "id" with
// what a client can act on: not_ready (409, try again once it is ready;
// its ThumbHash shows meanwhile) or failed (409, it never will be).
func readyForVariants(m Media) error {
	switch m.Status {
	case StatusReady:
		return nil
	case StatusFailed:
		return &guidepost.Error{Code: guidepost.ECONFLICT, Message: "the photo failed processing and has no variants",
			Fields: []guidepost.FieldError{guidepost.Field("id", guidepost.FFAILED, "names a photo that failed processing: it will never have variants")}}
	}
	return &guidepost.Error{Code: guidepost.ECONFLICT, Message: "the photo is still being processed",
		Fields: []guidepost.FieldError{guidepost.Field("id", guidepost.FNOTREADY, "names a photo still being processed: ask again once it is ready")}}
}

// variantKinds are the kinds a variant name may start with.
var variantKinds = []string{KindMarker, KindSmall, KindThumb, KindWeb}

// variantEncodings are the encodings a variant name may end with; a name
// for one the server does not render is well formed and simply not found.
var variantEncodings = []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF}

// parseVariant reads "<kind>.<ext>" as the objects are named.
func parseVariant(name string) (string, photo.Encoding, error) {
	kind, ext, _ := strings.Cut(name, ".")
	for _, k := range variantKinds {
		for _, f := range variantEncodings {
			if kind == k && ext == f.Ext() {
				return k, f, nil
			}
		}
	}
	return "", "", guidepost.Invalid(guidepost.Field("variant", guidepost.FINVALIDFORMAT,
		"must be <kind>.<ext>: kind marker, small, thumbnail or web; ext jpg, webp or avif"))
}
