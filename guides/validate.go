package guides

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
)

// Limits of a guide, shared with api/openapi.yaml.
const (
	MaxTitle    = 120
	MaxBody     = 10_000
	MaxMedia    = 20
	MaxTags     = 10
	MaxTagChars = 32

	DefaultRadiusM = 1000
	MinRadiusM     = 1
	MaxRadiusM     = 50_000

	// The two map searches (nearby and viewport) page alike: one default
	// and one maximum, so a client's map screen needs one page size.
	DefaultMapLimit    = 100
	MaxMapLimit        = 500
	DefaultNearbyLimit = DefaultMapLimit
	MaxNearbyLimit     = MaxMapLimit
	DefaultBBoxLimit   = DefaultMapLimit
	MaxBBoxLimit       = MaxMapLimit
	DefaultMineLimit   = 20
	MaxMineLimit       = 100

	// MaxQueryChars bounds a text search (q).
	MaxQueryChars = 100
	// MaxQueryTerms bounds the terms of a text search (see QueryTerms).
	// Every term is one more posting list of the full-text index to read
	// and intersect, a prefix term (a Latin word of three letters or more)
	// every lexeme that starts with it, and a phrase a position check per
	// candidate: 100 characters used to allow 25 prefix terms. Eight hold
	// any search a person types (four words, or one Hangul compound of
	// nine syllables).
	MaxQueryTerms = 8

	MaxZoom = 22
	// MaxClusterCells bounds a clustering answer: a whole-world map at zoom
	// 5 is ~10,000 cells; zooming in on a huge viewport must zoom the map.
	MaxClusterCells = 50_000
	// MaxClusterScan bounds the guides a clustering above zoom 13 reads (it
	// groups the viewport's guides themselves, all of them with a tag too,
	// the tag filtering them one by one). A viewport holding more is
	// grouped on the zoom-13 grid instead, from the per-tile sums: exact
	// counts in cells twice as wide, for ~1 ms whatever the count. The
	// grouping costs ~15-20 µs a guide (central Seoul at 1 M guides, on
	// two busy cores): 5,862 guides took 77-118 ms, 51,832 took 0.7-1.1 s
	// and spilled its sort to disk, a zoom-14 tile's share of the
	// 5 s statement timeout nothing else on the map comes near. A zoom-14
	// tile of central Seoul holds ~4,000 guides at 1 M, ~40,000 at 10 M.
	MaxClusterScan = 5_000

	// A spot (SpotRadiusM around a point) holds at most MaxGuidesPerSpot
	// guides: nearby queries around a stack read all of it.
	MaxGuidesPerSpot = 1000
	SpotRadiusM      = 1
)

// Input is a new guide as a client sends it. Lat and Lng are pointers so
// that a missing coordinate is told apart from 0.
type Input struct {
	Title    string
	Body     string
	Lat, Lng *float64
	// LocationFromMediaID, instead of Lat and Lng, pins the guide where
	// this photo of the author's was taken.
	LocationFromMediaID string
	MediaIDs            []string
	Tags                []string
}

// Patch changes any subset of a guide's fields; nil leaves a field as it is.
type Patch struct {
	Title               *string
	Body                *string
	Lat, Lng            *float64
	LocationFromMediaID *string // see Input
	MediaIDs            *[]string
	Tags                *[]string
}

func (p Patch) empty() bool {
	return p.Title == nil && p.Body == nil && p.Lat == nil && p.Lng == nil && p.MediaIDs == nil && p.Tags == nil
}

// NearbyParams is a radius search as a client sends it; nil means absent.
type NearbyParams struct {
	Lat, Lng *float64
	RadiusM  *float64
	Limit    *int
	Cursor   string
	Tag      string
	Text     string // q: words every guide found must contain
	ViewerID string // "" for anonymous: decides liked_by_me
}

// BBoxParams is a viewport search; parse the bbox with ParseBBox.
type BBoxParams struct {
	BBox     *BBox
	Limit    *int
	Cursor   string
	Tag      string
	Text     string
	ViewerID string
}

// MineParams pages through the caller's own guides, newest first.
type MineParams struct {
	UserID string
	Limit  *int
	Cursor string
}

// ClusterParams is a clustering request. Zoom may be fractional, as map
// SDKs report it: the grid is the one of its whole part.
type ClusterParams struct {
	BBox     *BBox
	Zoom     *float64
	Tag      string
	ViewerID string // "" for anonymous; a signed-in viewer's blocked authors are not counted
}

func checkTitle(f *guidepost.Fields, title string) string {
	title = strings.TrimSpace(title)
	switch n := utf8.RuneCountInString(title); {
	case n == 0:
		f.Add("title", guidepost.FREQUIRED, "is required")
	case n > MaxTitle:
		f.Add("title", guidepost.FTOOLONG, fmt.Sprintf("must be at most %d characters", MaxTitle))
	case guidepost.TextProblem(title, false) != "":
		f.Add("title", guidepost.FINVALIDCHARS, guidepost.TextProblem(title, false))
	}
	return title
}

func checkBody(f *guidepost.Fields, body string) string {
	switch {
	case utf8.RuneCountInString(body) > MaxBody:
		f.Add("body", guidepost.FTOOLONG, fmt.Sprintf("must be at most %d characters", MaxBody))
	case guidepost.TextProblem(body, true) != "":
		f.Add("body", guidepost.FINVALIDCHARS, guidepost.TextProblem(body, true))
	}
	return body
}

func checkLat(f *guidepost.Fields, field string, v *float64) {
	switch {
	case v == nil:
		f.Add(field, guidepost.FREQUIRED, "is required")
	case math.IsNaN(*v) || math.IsInf(*v, 0):
		f.Add(field, guidepost.FINVALIDFORMAT, "must be a finite number")
	case *v < -90 || *v > 90:
		f.Add(field, guidepost.FOUTOFRANGE, "must be between -90 and 90")
	}
}

func checkLng(f *guidepost.Fields, field string, v *float64) {
	switch {
	case v == nil:
		f.Add(field, guidepost.FREQUIRED, "is required")
	case math.IsNaN(*v) || math.IsInf(*v, 0):
		f.Add(field, guidepost.FINVALIDFORMAT, "must be a finite number")
	case *v < -180 || *v > 180:
		f.Add(field, guidepost.FOUTOFRANGE, "must be between -180 and 180")
	}
}

// normID is a photo id as stored, or "" when id is not one.
func normID(id string) string {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return ""
	}
	return u.String()
}

// checkMedia wants photo ids, each once, at most MaxMedia. Ownership is
// checked by the store in the writing transaction (PhotoProblems).
func checkMedia(f *guidepost.Fields, ids []string) []string {
	if len(ids) > MaxMedia {
		f.Add("media_ids", guidepost.FTOOMANY, fmt.Sprintf("must list at most %d photos", MaxMedia))
		return nil
	}
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		field := "media_ids[" + strconv.Itoa(i) + "]"
		norm := normID(id)
		if norm == "" {
			f.Add(field, guidepost.FINVALIDFORMAT, "is not a media id")
			continue
		}
		if seen[norm] {
			f.Add(field, guidepost.FDUPLICATE, "is listed twice")
			continue
		}
		seen[norm] = true
		out = append(out, norm)
	}
	return out
}

// normTag is how tags are stored and compared: trimmed and lower-case.
func normTag(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// checkTagValue returns the field code and message of what is wrong with
// a tag, or "" twice.
func checkTagValue(t string) (code, msg string) {
	switch n := utf8.RuneCountInString(t); {
	case n == 0:
		return guidepost.FREQUIRED, "must not be empty"
	case n > MaxTagChars:
		return guidepost.FTOOLONG, fmt.Sprintf("must be at most %d characters", MaxTagChars)
	}
	if msg := guidepost.TextProblem(t, false); msg != "" {
		return guidepost.FINVALIDCHARS, msg
	}
	return "", ""
}

// checkTags normalises tags and drops repeats, keeping the first order.
func checkTags(f *guidepost.Fields, tags []string) []string {
	if len(tags) > MaxTags {
		f.Add("tags", guidepost.FTOOMANY, fmt.Sprintf("must list at most %d tags", MaxTags))
		return nil
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for i, t := range tags {
		t = normTag(t)
		if code, msg := checkTagValue(t); code != "" {
			f.Add("tags["+strconv.Itoa(i)+"]", code, msg)
			continue
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (in Input) validate() (NewGuide, error) {
	var f guidepost.Fields
	g := NewGuide{Title: checkTitle(&f, in.Title), Body: checkBody(&f, in.Body)}
	// Pinned to a photo that could not give its place: that problem is
	// location_from_media_id's, not a missing lat and lng.
	pinFailed := in.LocationFromMediaID != "" && in.Lat == nil && in.Lng == nil
	if !pinFailed {
		checkLat(&f, "lat", in.Lat)
		checkLng(&f, "lng", in.Lng)
	}
	g.MediaIDs = checkMedia(&f, in.MediaIDs)
	g.Tags = checkTags(&f, in.Tags)
	if err := f.Err(); err != nil || pinFailed {
		return NewGuide{}, err
	}
	g.Lat, g.Lng = *in.Lat, *in.Lng
	return g, nil
}

// normalized checks every field the patch sets and returns it with values
// normalised, so apply cannot fail on a value.
func (p Patch) normalized() (Patch, error) {
	var f guidepost.Fields
	out := p
	if p.Title != nil {
		t := checkTitle(&f, *p.Title)
		out.Title = &t
	}
	if p.Body != nil {
		b := checkBody(&f, *p.Body)
		out.Body = &b
	}
	if p.Lat != nil {
		checkLat(&f, "lat", p.Lat)
	}
	if p.Lng != nil {
		checkLng(&f, "lng", p.Lng)
	}
	if p.MediaIDs != nil {
		m := checkMedia(&f, *p.MediaIDs)
		out.MediaIDs = &m
	}
	if p.Tags != nil {
		t := checkTags(&f, *p.Tags)
		out.Tags = &t
	}
	return out, f.Err()
}

func (p Patch) apply(d *Draft) {
	if p.Title != nil {
		d.Title = *p.Title
	}
	if p.Body != nil {
		d.Body = *p.Body
	}
	if p.Lat != nil {
		d.Lat = *p.Lat
	}
	if p.Lng != nil {
		d.Lng = *p.Lng
	}
	if p.MediaIDs != nil {
		d.MediaIDs = *p.MediaIDs
	}
	if p.Tags != nil {
		d.Tags = *p.Tags
	}
}

func checkTagFilter(f *guidepost.Fields, tag string) string {
	if tag == "" {
		return ""
	}
	t := normTag(tag)
	if code, msg := checkTagValue(t); code != "" {
		f.Add("tag", code, msg)
	}
	return t
}

// checkText reads a text search: trimmed, at most MaxQueryChars, with at
// least one letter or digit (punctuation alone finds nothing).
func checkText(f *guidepost.Fields, q string) string {
	q = strings.TrimSpace(q)
	switch {
	case q == "":
		return ""
	case utf8.RuneCountInString(q) > MaxQueryChars:
		f.Add("q", guidepost.FTOOLONG, fmt.Sprintf("must be at most %d characters", MaxQueryChars))
	case guidepost.TextProblem(q, false) != "":
		f.Add("q", guidepost.FINVALIDCHARS, guidepost.TextProblem(q, false))
	case strings.IndexFunc(q, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0:
		f.Add("q", guidepost.FINVALIDFORMAT, "must contain a letter or a digit")
	case QueryTerms(q) > MaxQueryTerms:
		f.Add("q", guidepost.FTOOMANY, fmt.Sprintf("has %d search terms, more than %d: a word is one term, a Hangul word of n syllables n−1 (its syllable pairs)",
			QueryTerms(q), MaxQueryTerms))
	}
	return q
}

// QueryTerms counts the index terms guide_search_query (migrations) makes
// of q: q is cut into runs of Hangul syllables and runs of anything else
// but spaces; a Hangul run of n syllables is the phrase of its n−1
// syllable pairs (one term for a single syllable), any other run one term
// per word of letters or digits in it (punctuation alone is none).
func QueryTerms(q string) int {
	n, hangul, word := 0, 0, false
	endHangul := func() {
		if hangul > 0 {
			n += max(1, hangul-1)
		}
		hangul = 0
	}
	for _, r := range q {
		switch {
		case r >= '가' && r <= '힣':
			word = false
			hangul++
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			endHangul()
			if !word {
				n++
			}
			word = true
		default:
			endHangul()
			word = false
		}
	}
	endHangul()
	return n
}

func (q NearbyQuery) fingerprint() []byte {
	return fingerprint([]float64{q.Lat, q.Lng, q.RadiusM}, q.Tag, q.Text)
}

func (q BBoxQuery) fingerprint() []byte {
	b := q.BBox
	return fingerprint([]float64{b.MinLng, b.MinLat, b.MaxLng, b.MaxLat}, q.Tag, "bbox", q.Text)
}

// nearbyQuery validates p; the cursor is checked against the query it must
// belong to, and its depth returned (0 without one). The fingerprint is
// returned with a cursor only: a first page (the usual read) needs one
// only when its answer is built and issues a next cursor (fingerprintOf).
func (p NearbyParams) query(signer cursorSigner, now time.Time) (NearbyQuery, []byte, int, error) {
	var f guidepost.Fields
	checkLat(&f, "lat", p.Lat)
	checkLng(&f, "lng", p.Lng)
	radius := float64(DefaultRadiusM)
	if p.RadiusM != nil {
		radius = *p.RadiusM
		if math.IsNaN(radius) || math.IsInf(radius, 0) || radius < MinRadiusM || radius > MaxRadiusM {
			f.Add("radius_m", guidepost.FOUTOFRANGE, fmt.Sprintf("must be between %d and %d metres", MinRadiusM, MaxRadiusM))
		}
	}
	limit := guidepost.PageSize(&f, "limit", p.Limit, DefaultNearbyLimit, MaxNearbyLimit)
	tag := checkTagFilter(&f, p.Tag)
	text := checkText(&f, p.Text)
	if err := f.Err(); err != nil {
		return NearbyQuery{}, nil, 0, err
	}
	q := NearbyQuery{Lat: *p.Lat, Lng: *p.Lng, RadiusM: radius, Limit: limit, Tag: tag, Text: text}
	if p.Cursor == "" {
		return q, nil, 0, nil // the answer makes the fingerprint if it issues a cursor
	}
	fp := q.fingerprint()
	at, bad := signer.decode(p.Cursor, fp, now, "lat, lng, radius_m, tag and q")
	if bad.Code != "" {
		return NearbyQuery{}, nil, 0, guidepost.Invalid(bad)
	}
	q.After = &at.Position
	return q, fp, at.Depth, nil
}

// query validates p; the cursor is checked against the query it must
// belong to, and its depth returned (0 without one).
func (p BBoxParams) query(signer cursorSigner, now time.Time) (BBoxQuery, []byte, int, error) {
	var f guidepost.Fields
	if p.BBox == nil {
		f.Add("bbox", guidepost.FREQUIRED, "is required: minLng,minLat,maxLng,maxLat")
	}
	limit := guidepost.PageSize(&f, "limit", p.Limit, DefaultBBoxLimit, MaxBBoxLimit)
	tag := checkTagFilter(&f, p.Tag)
	text := checkText(&f, p.Text)
	if err := f.Err(); err != nil {
		return BBoxQuery{}, nil, 0, err
	}
	q := BBoxQuery{BBox: *p.BBox, Limit: limit, Tag: tag, Text: text}
	if p.Cursor == "" {
		return q, nil, 0, nil // as NearbyParams.query's
	}
	fp := q.fingerprint()
	at, bad := signer.decode(p.Cursor, fp, now, "bbox, tag and q")
	if bad.Code != "" {
		return BBoxQuery{}, nil, 0, guidepost.Invalid(bad)
	}
	q.Before = at.ID
	return q, fp, at.Depth, nil
}

// query validates p.
func (p MineParams) query() (MineQuery, error) {
	limit, before, err := guidepost.CheckPage(p.Limit, p.Cursor, DefaultMineLimit, MaxMineLimit)
	if err != nil {
		return MineQuery{}, err
	}
	return MineQuery{AuthorID: p.UserID, Limit: limit, Before: before}, nil
}

func (p ClusterParams) query() (ClusterQuery, error) {
	var f guidepost.Fields
	if p.BBox == nil {
		f.Add("bbox", guidepost.FREQUIRED, "is required: minLng,minLat,maxLng,maxLat")
	}
	switch {
	case p.Zoom == nil:
		f.Add("zoom", guidepost.FREQUIRED, "is required")
	case !(*p.Zoom >= 0 && *p.Zoom <= MaxZoom): // NaN too
		f.Add("zoom", guidepost.FOUTOFRANGE, fmt.Sprintf("must be between 0 and %d", MaxZoom))
	}
	tag := checkTagFilter(&f, p.Tag)
	if err := f.Err(); err != nil {
		return ClusterQuery{}, err
	}
	zoom := int(math.Floor(*p.Zoom))
	if n := ClusterCellCount(*p.BBox, zoom); n > MaxClusterCells {
		return ClusterQuery{}, guidepost.Invalid(guidepost.Field("bbox", guidepost.FOUTOFRANGE,
			fmt.Sprintf("covers %d cells at zoom %d, more than %d: zoom out or send a smaller viewport", n, zoom, MaxClusterCells)))
	}
	return ClusterQuery{BBox: *p.BBox, Zoom: zoom, Tag: tag}, nil
}

// ParseBBox reads "minLng,minLat,maxLng,maxLat". Every problem is an
// EINVALID naming field (the query parameter). A viewport that crosses the
// antimeridian (minLng > maxLng) is refused with a clear message: split it
// in two at ±180.
func ParseBBox(field, s string) (BBox, error) {
	bad := func(code, msg string) (BBox, error) {
		return BBox{}, guidepost.Invalid(guidepost.Field(field, code, msg))
	}
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return bad(guidepost.FINVALIDFORMAT, fmt.Sprintf("must be four numbers minLng,minLat,maxLng,maxLat; got %d", len(parts)))
	}
	var v [4]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return bad(guidepost.FINVALIDFORMAT, fmt.Sprintf("value %d (%q) is not a number", i+1, p))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad(guidepost.FINVALIDFORMAT, fmt.Sprintf("value %d must be a finite number", i+1))
		}
		v[i] = x
	}
	b := BBox{MinLng: v[0], MinLat: v[1], MaxLng: v[2], MaxLat: v[3]}
	switch {
	case b.MinLng < -180 || b.MaxLng > 180 || b.MaxLng < -180 || b.MinLng > 180:
		return bad(guidepost.FOUTOFRANGE, "longitudes must be between -180 and 180")
	case b.MinLat < -90 || b.MaxLat > 90 || b.MaxLat < -90 || b.MinLat > 90:
		return bad(guidepost.FOUTOFRANGE, "latitudes must be between -90 and 90")
	case b.MinLat > b.MaxLat:
		return bad(guidepost.FOUTOFRANGE, "minLat must not be greater than maxLat")
	case b.MinLng > b.MaxLng:
		return bad(guidepost.FOUTOFRANGE, "minLng is greater than maxLng: a viewport crossing the antimeridian is not supported; send two, split at 180")
	}
	return b, nil
}
