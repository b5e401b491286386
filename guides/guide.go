// Package guides is the guide feature: writing guides with a location and
// photos, reading them, finding them near a point or inside a map viewport,
// clustering them for low zooms, and liking them. It validates every input
// and speaks only guidepost's error vocabulary; storage, the nearby cache
// and photo URLs sit behind the small interfaces in this file.
package guides

import (
	"context"
	"time"

	"github.com/guidepost/guidepost/media"
)

// Guide is one guide as a reader sees it. Its photos are media's own view
// of a photo: the photo feature sits below this one (it knows nothing of
// guides), so a guide shows exactly what GET /v1/media/{id} shows.
type Guide struct {
	ID        string
	Author    Author
	Title     string
	Body      string
	Lat, Lng  float64
	Tags      []string
	Media     []media.View // in the author's order, without the owner-only original URL
	LikeCount int64        // exact
	LikedByMe bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Hidden    *Hold // set only for the author: everyone else finds no hidden guide
}

// Hold is why moderation took a guide or a photo off every public surface;
// its author alone still sees it, labelled with the hold.
type Hold struct {
	Reason string
	At     time.Time
}

// Author is the public face of a guide's writer.
type Author struct {
	ID          string
	DisplayName string
}

// Item is a guide in a list (nearby, viewport, an author's own): what a
// map marker and a card need, nothing more.
type Item struct {
	ID         string
	Author     Author
	Title      string
	Lat, Lng   float64
	DistanceM  float64 // nearby only: metres from the query point
	LikeCount  int64   // may lag a second behind the exact count, except for the viewer's own likes
	Tags       []string
	CreatedAt  time.Time
	PhotoCount int
	Cover      Cover           // the first photo, if any
	CoverURLs  media.CoverURLs // filled in by the service, per answer (presigned URLs expire)
	LikedByMe  bool            // filled in by the service for a signed-in viewer
	Encoded    *Encoded        // set by the cache: see Encoded
	Hidden     *Hold           // the author's own list only: public lists hold no hidden guide
}

// Cover is the first photo of a guide, enough for a list thumbnail.
type Cover struct {
	MediaID   string // "" when the guide has no photo
	Status    media.Status
	ThumbHash string
	Width     int // the photo's displayed size; 0 until known
	Height    int
	Variants  []media.Variant // nil when rendered before variants
}

// Liker is who likes or unlikes. SessionID, when set, is the session the
// request came with, not yet checked live: the store checks it in the
// statement that writes the like and refuses (EUNAUTHORIZED) one revoked,
// expired or of a deleted account, writing nothing. A like then costs one
// round trip to PostgreSQL, its group commit, instead of a session check
// and then the commit (see api's authenticate).
type Liker struct {
	UserID    string
	SessionID string
}

// LikeState is the answer to a like or an unlike.
type LikeState struct {
	Liked     bool
	LikeCount int64
}

// Cluster is one grid cell of guides at a low zoom. GuideID is set when the
// cell holds exactly one guide, and Lat/Lng are then that guide's.
type Cluster struct {
	Lat, Lng float64 // centroid of the guides in the cell
	Count    int64
	GuideID  string
	Bounds   BBox // of the guides themselves
	// ExpansionZoom is the lowest zoom at which these guides fall in more
	// than one cell (see ExpansionZoom); 0 when they never do up to MaxZoom.
	ExpansionZoom int
	// Top is the most-liked guide of the cell (ties: the newest), filled
	// only when the query asks for it (WithTop): the guide itself when
	// Count is 1, its id and cover otherwise.
	Top Item
}

// NewGuide is a validated guide to store.
type NewGuide struct {
	ID        string
	AuthorID  string
	Title     string
	Body      string
	Lat, Lng  float64
	Tags      []string
	MediaIDs  []string
	CreatedAt time.Time
}

// Draft is the writable state of a stored guide, handed to the service
// inside the store's transaction so that it can check the author and apply
// a patch to the current values.
type Draft struct {
	AuthorID  string
	Title     string
	Body      string
	Lat, Lng  float64
	Tags      []string
	MediaIDs  []string
	UpdatedAt time.Time
}

// Position is where a nearby page ended: the order is (distance, id).
type Position struct {
	DistanceM float64
	ID        string
}

// NearbyQuery is a validated radius search. The store answers at most
// Limit items within RadiusM of the point, after After when set, sorted by
// Distance (metres on PostGIS's sphere) then id, carrying Tag when set.
type NearbyQuery struct {
	Lat, Lng float64
	RadiusM  float64
	Limit    int
	After    *Position
	Tag      string
	// Text, when set, keeps only guides whose title, body and tags hold
	// every word of it (the store's full-text search, see
	// guide_search_document in migrations/00016_baseline.sql).
	Text string
}

// BBox is a viewport: a longitude/latitude rectangle, edges included. It
// never crosses the antimeridian (MinLng ≤ MaxLng).
type BBox struct {
	MinLng, MinLat, MaxLng, MaxLat float64
}

// Contains reports whether the point is inside the rectangle, edges
// included: the one definition the store and the cache share.
func (b BBox) Contains(lat, lng float64) bool {
	return b.MinLat <= lat && lat <= b.MaxLat && b.MinLng <= lng && lng <= b.MaxLng
}

// BBoxQuery is a validated viewport search: the newest Limit guides inside
// BBox (ordered by id, newest first) older than Before when set, and
// whether more were left out.
type BBoxQuery struct {
	BBox   BBox
	Limit  int
	Tag    string
	Text   string // when set, only guides matching it
	Before string // a guide id: only older ones
}

// MineQuery is one page of an author's own guides, newest first, older
// than Before when set.
type MineQuery struct {
	AuthorID string
	Limit    int
	Before   string
}

// ClusterQuery is a validated clustering request: every cell of the zoom's
// clustering grid (see ClusterShift) that intersects BBox, counting all the
// guides in each cell, also those just outside the viewport, so that
// clusters do not change as the map pans.
type ClusterQuery struct {
	BBox BBox
	Zoom int
	Tag  string
	// WithTop asks for each cell's most-liked guide (Cluster.Top), which
	// costs a look at the likes of the guides in the viewport.
	WithTop bool
}

// Store keeps guides. Public methods own their transaction. Every error is
// in guidepost's vocabulary (ENOTFOUND for a missing guide, EINVALID naming
// media_ids[i] for a photo that is not the author's).
type Store interface {
	// CreateGuide stores g and attaches its media, checking that each media
	// exists and belongs to g.AuthorID.
	CreateGuide(ctx context.Context, g NewGuide) error
	// Guide reads one guide with its author, media and exact like count, in
	// a constant number of queries; viewerID ("" for anonymous) decides
	// LikedByMe.
	Guide(ctx context.Context, id, viewerID string) (Guide, error)
	// UpdateGuide locks the guide, lets apply check and change the draft,
	// then writes it; an error from apply aborts with nothing written.
	UpdateGuide(ctx context.Context, id string, apply func(*Draft) error) error
	// PhotoRefs reads the photos ids name that exist and are not deleted
	// (an id of "" is skipped), for PhotoProblems; UpdateGuide and
	// CreateGuide check them again in their transaction.
	PhotoRefs(ctx context.Context, ids []string) (map[string]PhotoRef, error)
	// DeleteGuide locks the guide, asks allow, then deletes it.
	DeleteGuide(ctx context.Context, id string, allow func(Draft) error) error
	// Like and Unlike are idempotent: repeating one changes nothing. Like
	// refuses, with ErrBlockedLike, a user the guide's author blocks: in
	// the statement that writes the like, so a storm of likes from users
	// this process has not seen costs no read apiece before its commit.
	// at is now: the like's time, and the time by's session must outlive.
	Like(ctx context.Context, guideID string, by Liker, at time.Time) (LikeState, error)
	Unlike(ctx context.Context, guideID string, by Liker, at time.Time) (LikeState, error)
	Nearby(ctx context.Context, q NearbyQuery) ([]Item, error)
	InBBox(ctx context.Context, q BBoxQuery) (items []Item, truncated bool, err error)
	// ByAuthor answers MineQuery; it may read more than Limit.
	ByAuthor(ctx context.Context, q MineQuery) ([]Item, error)
	// ViewerStates tells, for each of ids that exists, whether viewerID
	// likes it and its exact like count, read now: what a list shows its
	// viewer, whichever tier answered the list, so that a viewer sees
	// their own like or unlike at once.
	ViewerStates(ctx context.Context, viewerID string, ids []string) (map[string]LikeState, error)
	Clusters(ctx context.Context, q ClusterQuery) ([]Cluster, error)
	// AuthorsIn reports whether any of authors has a guide in the tiles q
	// counts (ClusterQuery.Tiles), of q's tag when it has one.
	AuthorsIn(ctx context.Context, authors []string, q ClusterQuery) (bool, error)
	// ClustersWithout is Clusters as if authors had no guides.
	ClustersWithout(ctx context.Context, q ClusterQuery, authors []string) ([]Cluster, error)
	// VectorTile encodes q's clusters as a Mapbox vector tile (see
	// VectorTileQuery); nil when the tile holds nothing.
	VectorTile(ctx context.Context, q VectorTileQuery) ([]byte, error)
}

// MediaURLs gives the URLs a client downloads a ready photo from. The media
// feature implements it (presigned or public URLs) and main wires it; with
// none, guides show their photos without URLs. It is called per answer and
// never cached, so presigned URLs stay valid.
type MediaURLs interface {
	// WithURLs fills a ready photo's URLs and variants.
	WithURLs(ctx context.Context, v media.View) media.View
	// CoverURLs are a list cover's URLs from its variants (nil for a
	// photo rendered before variants).
	CoverURLs(ctx context.Context, mediaID string, variants []media.Variant) media.CoverURLs
}

// Clock tells the time; guidepost.Clock satisfies it.
type Clock interface {
	Now() time.Time
}
