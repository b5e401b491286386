package guides

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
)

// A nearby cursor is where the last page ended, (distance, id), bound to
// the query it came from and signed, so that a client can neither forge a
// position nor carry a cursor over to another point, radius or tag. It
// also carries when it was issued and how many guides came before it: the
// KNN scan walks every guide before the cursor, so a deep cursor replayed
// at will would cost without bound.
//
//	version(1) | issued unix s(8) | depth(4) | distance bits(8) | id(16) | query fingerprint(8) | HMAC-SHA256(…)[:16]
const (
	cursorVersion = 2
	cursorBody    = 1 + 8 + 4 + 8 + 16 + 8
	cursorMACLen  = 16
	cursorLen     = cursorBody + cursorMACLen
)

// Bounds of paging: a cursor is refused once older than MaxCursorAge, and
// a search pages through at most MaxCursorDepth guides, as far as
// Elasticsearch's max_result_window: a person never pages that far, and a
// cursor replayed there costs the KNN scan some 10,000 index entries.
const (
	MaxCursorAge   = time.Hour
	MaxCursorDepth = 10_000
)

// cursorIssueWindow is what a cursor's issue time is rounded down to, so
// that a page asked twice within it is the same bytes (its ETag is strong)
// and a page's version changes when it ends (a client revalidating keeps
// a cursor at most that much older than it thinks); a cursor then lasts
// between 55 and 60 minutes.
const cursorIssueWindow = 5 * time.Minute

// cursorAt is what a cursor says: where the page ended and how deep.
type cursorAt struct {
	Position
	Depth  int
	Issued time.Time
}

type cursorSigner struct{ key []byte }

// CursorKey derives the cursor-signing key from a server secret (the JWT
// secret), so every API process signs and accepts the same cursors.
func CursorKey(secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("guidepost/guides/nearby-cursor/v1"))
	return m.Sum(nil)
}

// fingerprint names a query for its cursors: a cursor is only valid for the
// same numbers (a nearby point and radius, a viewport), tag and other
// values (the page size may change). extra is hashed only when set, so
// the nearby fingerprint of a search without text is what it always was.
func fingerprint(nums []float64, tag string, extra ...string) []byte {
	h := sha256.New()
	var b [8]byte
	for _, n := range nums {
		binary.BigEndian.PutUint64(b[:], math.Float64bits(n))
		h.Write(b[:])
	}
	h.Write([]byte(tag))
	for _, e := range extra {
		if e != "" {
			h.Write([]byte{0})
			h.Write([]byte(e))
		}
	}
	return h.Sum(nil)[:8]
}

func (s cursorSigner) mac(body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(body)
	return m.Sum(nil)[:cursorMACLen]
}

func (s cursorSigner) encode(fp []byte, at cursorAt) string {
	id, err := uuid.Parse(at.ID)
	if err != nil {
		return "" // ids come from the store; never happens
	}
	b := make([]byte, 0, cursorLen)
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(at.Issued.Unix()))
	b = binary.BigEndian.AppendUint32(b, uint32(min(max(at.Depth, 0), math.MaxUint32)))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(at.DistanceM))
	b = append(b, id[:]...)
	b = append(b, fp...)
	b = append(b, s.mac(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decode returns the position, or what is wrong with the cursor for the
// client. now decides whether the cursor has expired; params names what
// must stay the same.
func (s cursorSigner) decode(cursor string, fp []byte, now time.Time, params string) (cursorAt, guidepost.FieldError) {
	foreign := guidepost.Field("cursor", guidepost.FINVALIDFORMAT, "is not a cursor this server issued")
	if len(cursor) > base64.RawURLEncoding.EncodedLen(cursorLen) {
		return cursorAt{}, foreign
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != cursorLen || b[0] != cursorVersion {
		return cursorAt{}, foreign
	}
	if !hmac.Equal(s.mac(b[:cursorBody]), b[cursorBody:]) {
		return cursorAt{}, foreign
	}
	if !hmac.Equal(b[37:45], fp) {
		return cursorAt{}, guidepost.Field("cursor", guidepost.FMISMATCH, "belongs to another query: "+params+" must stay the same")
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[1:9])), 0)
	depth := int(binary.BigEndian.Uint32(b[9:13]))
	d := math.Float64frombits(binary.BigEndian.Uint64(b[13:21]))
	var id uuid.UUID
	copy(id[:], b[21:37])
	switch {
	case math.IsNaN(d) || math.IsInf(d, 0) || d < 0:
		return cursorAt{}, foreign
	case now.Sub(issued) > MaxCursorAge:
		return cursorAt{}, guidepost.Field("cursor", guidepost.FEXPIRED, fmt.Sprintf("has expired (cursors last %v): start the search again", MaxCursorAge))
	case depth >= MaxCursorDepth:
		return cursorAt{}, guidepost.Field("cursor", guidepost.FOUTOFRANGE, fmt.Sprintf("is past the %d guides a search pages through: narrow the search or filter by tag", MaxCursorDepth))
	}
	return cursorAt{Position: Position{DistanceM: d, ID: id.String()}, Depth: depth, Issued: issued}, guidepost.FieldError{}
}
