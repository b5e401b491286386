package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/idempotency"
)

// GuideService is what the guide routes consume (guides.Service).
type GuideService interface {
	CreateOnce(ctx context.Context, authorID, key string, in guides.Input) (g guides.Guide, replayed bool, err error)
	Get(ctx context.Context, id, viewerID string) (guides.Guide, error)
	Update(ctx context.Context, id, userID string, p guides.Patch) (guides.Guide, error)
	Delete(ctx context.Context, id, userID string) error
	Mine(ctx context.Context, p guides.MineParams) (guides.MinePage, error)
	// Map reads, validated once: serveMap (etag.go) names their version
	// and builds their answer from the read.
	ReadNearby(p guides.NearbyParams) (guides.NearbyRead, error)
	ReadBBox(p guides.BBoxParams) (guides.BBoxRead, error)
	ReadClusters(p guides.ClusterParams) (guides.ClustersRead, error)
	ReadTile(p guides.VectorTileParams) (guides.TileRead, error)
	// Like and Unlike check by's session themselves (guides.Liker).
	Like(ctx context.Context, id string, by guides.Liker) (guides.LikeState, error)
	Unlike(ctx context.Context, id string, by guides.Liker) (guides.LikeState, error)
}

func (s *Server) guideRoutes(v1 *gin.RouterGroup) {
	g := v1.Group("/guides", s.guidesEnabled)
	write := s.metered(s.cfg.Rates.GuideWrite, s.cfg.Rates.GuideRefusals, nil)
	// A like refused 401 gives its event back (limitRefunding).
	like := s.limitRefunding(s.cfg.Rates.Like, byAccount, http.StatusUnauthorized)
	g.POST("", s.requireUser, write, s.createGuide)
	g.GET("", s.guidesInBBox)
	g.GET("/nearby", s.nearbyGuides)
	g.GET("/clusters", s.guideClusters)
	g.GET("/:id", s.getGuide)
	g.PATCH("/:id", s.requireUser, write, s.updateGuide)
	g.DELETE("/:id", s.requireUser, write, s.deleteGuide)
	// A like's write checks its session (authToken). It gives its slot
	// back before its rate limit: what is left is a Redis call and a group
	// commit, waits that cost this process no CPU.
	likes := s.v1(authToken).Group("/guides", s.guidesEnabled)
	likes.PUT(likeRoute, s.requireUser, freeSlot, like, s.likeGuide)
	likes.DELETE(likeRoute, s.requireUser, freeSlot, like, s.unlikeGuide)
}

// guidesEnabled answers 503 when main wired no guide service (the routes
// are always registered, so the OpenAPI test sees them).
func (s *Server) guidesEnabled(c *gin.Context) {
	if s.deps.Guides == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "guides are not enabled on this server"))
		return
	}
	c.Next()
}

type guideAuthorJSON struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
}

type guideJSON struct {
	ID        string          `json:"id"`
	Author    guideAuthorJSON `json:"author"`
	Title     string          `json:"title"`
	Body      string          `json:"body"`
	Lat       float64         `json:"lat"`
	Lng       float64         `json:"lng"`
	Tags      []string        `json:"tags"`
	Media     []mediaJSON     `json:"media"`
	LikeCount int64           `json:"like_count"`
	LikedByMe bool            `json:"liked_by_me"`
	CreatedAt timestamp       `json:"created_at"`
	UpdatedAt timestamp       `json:"updated_at"`
	Hidden    *holdJSON       `json:"hidden,omitempty"` // its author's only: no one else finds a hidden guide
}

func toGuideJSON(g guides.Guide) guideJSON {
	j := guideJSON{
		ID: g.ID, Author: guideAuthorJSON{ID: g.Author.ID, DisplayName: g.Author.DisplayName},
		Title: g.Title, Body: g.Body, Lat: guides.RoundCoordinate(g.Lat), Lng: guides.RoundCoordinate(g.Lng), Tags: g.Tags,
		Media: make([]mediaJSON, len(g.Media)), LikeCount: g.LikeCount, LikedByMe: g.LikedByMe,
		CreatedAt: timestamp(g.CreatedAt), UpdatedAt: timestamp(g.UpdatedAt),
	}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	if g.Hidden != nil {
		j.Hidden = &holdJSON{Reason: g.Hidden.Reason, HiddenAt: timestamp(g.Hidden.At)}
	}
	for i, m := range g.Media {
		// The same object as GET /v1/media/{id}; the guide service never
		// sets the owner-only original URL.
		j.Media[i] = toMediaJSON(m)
	}
	return j
}

// answerType is what c.JSON sends.
const answerType = "application/json; charset=utf-8"

func (s *Server) createGuide(c *gin.Context) {
	var in struct {
		Title    string   `json:"title"`
		Body     string   `json:"body"`
		Lat      *float64 `json:"lat"`
		Lng      *float64 `json:"lng"`
		From     string   `json:"location_from_media_id"`
		MediaIDs []string `json:"media_ids"`
		Tags     []string `json:"tags"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	g, replayed, err := s.deps.Guides.CreateOnce(ctx, auth.UserID(ctx), c.GetHeader(idempotency.Header), guides.Input{
		Title: in.Title, Body: in.Body, Lat: in.Lat, Lng: in.Lng, LocationFromMediaID: in.From, MediaIDs: in.MediaIDs, Tags: in.Tags,
	})
	if err != nil {
		fail(c, err)
		return
	}
	if replayed {
		c.Header("Idempotent-Replayed", "true")
	}
	c.Header("Location", "/v1/guides/"+g.ID)
	c.JSON(http.StatusCreated, toGuideJSON(g))
}

func (s *Server) getGuide(c *gin.Context) {
	g, err := s.deps.Guides.Get(c.Request.Context(), c.Param("id"), auth.UserID(c.Request.Context()))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toGuideJSON(g))
}

func (s *Server) updateGuide(c *gin.Context) {
	var in struct {
		Title    *string   `json:"title"`
		Body     *string   `json:"body"`
		Lat      *float64  `json:"lat"`
		Lng      *float64  `json:"lng"`
		From     *string   `json:"location_from_media_id"`
		MediaIDs *[]string `json:"media_ids"`
		Tags     *[]string `json:"tags"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	g, err := s.deps.Guides.Update(c.Request.Context(), c.Param("id"), auth.UserID(c.Request.Context()), guides.Patch{
		Title: in.Title, Body: in.Body, Lat: in.Lat, Lng: in.Lng, LocationFromMediaID: in.From, MediaIDs: in.MediaIDs, Tags: in.Tags,
	})
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toGuideJSON(g))
}

func (s *Server) deleteGuide(c *gin.Context) {
	if err := s.deps.Guides.Delete(c.Request.Context(), c.Param("id"), auth.UserID(c.Request.Context())); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

type likeJSON struct {
	LikedByMe bool  `json:"liked_by_me"`
	LikeCount int64 `json:"like_count"`
}

// likeRoute is the like's path under /v1/guides; authenticate leaves its
// session check to the like's own statement (authToken).
const likeRoute = "/:id/like"

func (s *Server) likeGuide(c *gin.Context)   { s.answerLike(c, s.deps.Guides.Like) }
func (s *Server) unlikeGuide(c *gin.Context) { s.answerLike(c, s.deps.Guides.Unlike) }

// answerLike likes or unlikes for the caller with the caller's session,
// which the store checks live in the statement that writes (guides.Liker).
func (s *Server) answerLike(c *gin.Context, do func(context.Context, string, guides.Liker) (guides.LikeState, error)) {
	ctx := c.Request.Context()
	caller := auth.CallerOf(ctx)
	st, err := do(ctx, c.Param("id"), guides.Liker{UserID: caller.UserID, SessionID: caller.SessionID})
	switch {
	case guidepost.ErrorCode(err) == guidepost.EUNAUTHORIZED:
		s.unauthorized(c, err)
	case err != nil:
		fail(c, err)
	default:
		c.JSON(http.StatusOK, likeJSON{LikedByMe: st.Liked, LikeCount: st.LikeCount})
	}
}

// queryParams reads a list route's query string strictly: an unknown or
// repeated parameter, or one that is not a number where a number is
// wanted, is EINVALID naming the parameter. It reads the pairs as
// url.ParseQuery does, without its map: a map read's query is a handful of
// pairs, and the numbers it returns point into it, so reading one costs a
// single allocation.
type queryParams struct {
	pairs  []queryPair
	fields guidepost.Fields
	inline [8]queryPair
	nums   [4]float64
	ints   [2]int
	nn, ni int
}

type queryPair struct{ name, value string }

func newQueryParams(c *gin.Context, known ...string) *queryParams {
	q := &queryParams{}
	q.pairs = q.inline[:0]
	plain := plainQuery(c.Request.URL.RawQuery)
	for pair := range strings.SplitSeq(c.Request.URL.RawQuery, "&") {
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		if plain {
			q.pairs = append(q.pairs, queryPair{rawName, rawValue})
			continue
		}
		name, err1 := url.QueryUnescape(rawName)
		value, err2 := url.QueryUnescape(rawValue)
		if err1 == nil && err2 == nil {
			q.pairs = append(q.pairs, queryPair{name, value})
		}
	}
	var wrong []string
	for i, p := range q.pairs {
		if q.index(p.name) != i {
			continue // reported with its first
		}
		switch {
		case !contains(known, p.name):
			wrong = append(wrong, p.name)
		case q.count(p.name) > 1:
			wrong = append(wrong, p.name)
		}
	}
	sort.Strings(wrong)
	for _, name := range wrong {
		if !contains(known, name) {
			q.fields.Add(name, guidepost.FUNKNOWNPARAMETER, unknownName(known))
		} else {
			q.fields.Add(name, guidepost.FDUPLICATE, "must be given once")
		}
	}
	return q
}

// index is the position of name's first pair, -1 when it has none.
func (q *queryParams) index(name string) int {
	for i, p := range q.pairs {
		if p.name == name {
			return i
		}
	}
	return -1
}

func (q *queryParams) count(name string) int {
	n := 0
	for _, p := range q.pairs {
		if p.name == name {
			n++
		}
	}
	return n
}

func (q *queryParams) has(name string) bool { return q.index(name) >= 0 }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (q *queryParams) str(name string) string {
	if i := q.index(name); i >= 0 {
		return q.pairs[i].value
	}
	return ""
}

func (q *queryParams) float(name string) *float64 {
	if !q.has(name) {
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(q.str(name)), 64)
	if err != nil {
		q.fields.Add(name, guidepost.FINVALIDFORMAT, "must be a number")
		return nil
	}
	if q.nn == len(q.nums) {
		return new(v) // &v would put every v on the heap
	}
	q.nn++
	q.nums[q.nn-1] = v
	return &q.nums[q.nn-1]
}

func (q *queryParams) int(name string) *int {
	if !q.has(name) {
		return nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(q.str(name)))
	if err != nil {
		q.fields.Add(name, guidepost.FINVALIDFORMAT, "must be an integer")
		return nil
	}
	if q.ni == len(q.ints) {
		return new(v)
	}
	q.ni++
	q.ints[q.ni-1] = v
	return &q.ints[q.ni-1]
}

func (q *queryParams) bbox(name string) *guides.BBox {
	if !q.has(name) {
		return nil
	}
	b, err := guides.ParseBBox(name, q.str(name))
	if err != nil {
		q.fields = append(q.fields, guidepost.ErrorFields(err)...)
		return nil
	}
	return &b
}

func (s *Server) nearbyGuides(c *gin.Context) {
	q := newQueryParams(c, "lat", "lng", "radius_m", "limit", "cursor", "tag", "q")
	p := guides.NearbyParams{Lat: q.float("lat"), Lng: q.float("lng"), RadiusM: q.float("radius_m"),
		Limit: q.int("limit"), Cursor: q.str("cursor"), Tag: q.str("tag"), Text: q.str("q"),
		ViewerID: auth.UserID(c.Request.Context())}
	if err := q.fields.Err(); err != nil {
		fail(c, err)
		return
	}
	r, err := s.deps.Guides.ReadNearby(p)
	if err != nil {
		fail(c, err)
		return
	}
	serveMap(c, r, mapRoute[guides.NearbyPage]{memo: s.answers, vary: true, mediaType: answerTypes, encode: encodeNearby})
}

func encodeNearby(page guides.NearbyPage) ([]byte, *[]byte, error) {
	answer := itemsAnswer(page.Items, true, cursorField(page.NextCursor), truncatedField(page.Truncated))
	return *answer, answer, nil
}

// listHeaders marks a list answer as depending on the caller: liked_by_me
// and the exact counts are read for a bearer token's account.
// A JSON answer varies by Accept-Encoding too (compressAnswers adds it
// unless present): both at once cost one header value made once.
func listHeaders(c *gin.Context) {
	h := c.Writer.Header()
	if len(h["Vary"]) == 0 {
		h["Vary"] = varyAuthorization
		return
	}
	h.Add("Vary", "Authorization")
}

var varyAuthorization = []string{"Authorization", "Accept-Encoding"}

// truncatedField is a map search's truncated: more results exist than the
// page holds.
func truncatedField(t bool) answerField {
	return answerField{"truncated", func(b []byte) []byte { return strconv.AppendBool(b, t) }}
}

// cursorField is a list answer's next_cursor: null on the last page.
func cursorField(cursor string) answerField {
	return answerField{"next_cursor", func(b []byte) []byte { return appendNullable(b, cursor) }}
}

func (s *Server) guidesInBBox(c *gin.Context) {
	q := newQueryParams(c, "bbox", "limit", "cursor", "tag", "q")
	p := guides.BBoxParams{BBox: q.bbox("bbox"), Limit: q.int("limit"), Cursor: q.str("cursor"), Tag: q.str("tag"),
		Text: q.str("q"), ViewerID: auth.UserID(c.Request.Context())}
	if err := q.fields.Err(); err != nil {
		fail(c, err)
		return
	}
	r, err := s.deps.Guides.ReadBBox(p)
	if err != nil {
		fail(c, err)
		return
	}
	serveMap(c, r, mapRoute[guides.BBoxPage]{memo: s.answers, vary: true, mediaType: answerTypes, encode: encodeBBox})
}

func encodeBBox(page guides.BBoxPage) ([]byte, *[]byte, error) {
	answer := itemsAnswer(page.Items, false, cursorField(page.NextCursor), truncatedField(page.Truncated))
	return *answer, answer, nil
}

type clusterJSON struct {
	Lat     float64 `json:"lat"`
	Lng     float64 `json:"lng"`
	Count   int64   `json:"count"`
	GuideID string  `json:"guide_id,omitempty"`
	// ExpansionZoom is null for a single guide, and for guides too close
	// together to split at the deepest zoom.
	ExpansionZoom *int       `json:"expansion_zoom"`
	Bounds        [4]float64 `json:"bounds"` // minLng, minLat, maxLng, maxLat, as bbox
}

func (s *Server) guideClusters(c *gin.Context) {
	q := newQueryParams(c, "bbox", "zoom", "tag")
	p := guides.ClusterParams{BBox: q.bbox("bbox"), Zoom: q.float("zoom"), Tag: q.str("tag"),
		ViewerID: auth.UserID(c.Request.Context())}
	if err := q.fields.Err(); err != nil {
		fail(c, err)
		return
	}
	r, err := s.deps.Guides.ReadClusters(p)
	if err != nil {
		fail(c, err)
		return
	}
	serveMap(c, r, mapRoute[[]guides.Cluster]{memo: s.clusters, mediaType: answerTypes, encode: encodeClusters})
}

func encodeClusters(clusters []guides.Cluster) ([]byte, *[]byte, error) {
	out := make([]clusterJSON, len(clusters))
	for i, cl := range clusters {
		b := cl.Bounds
		out[i] = clusterJSON{Lat: cl.Lat, Lng: cl.Lng, Count: cl.Count, GuideID: cl.GuideID,
			Bounds: [4]float64{b.MinLng, b.MinLat, b.MaxLng, b.MaxLat}}
		if cl.ExpansionZoom > 0 {
			out[i].ExpansionZoom = &cl.ExpansionZoom
		}
	}
	body, err := json.Marshal(gin.H{"clusters": out})
	return body, nil, err
}
