package guides

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"

	"github.com/google/uuid"
)

// A nearby cursor is where the last page ended, (distance, id), bound to
// the query it came from and signed, so that a client can neither forge a
// position nor carry a cursor over to another point, radius or tag.
//
//	version(1) | distance bits(8) | id(16) | query fingerprint(8) | HMAC-SHA256(…)[:16]
const (
	cursorVersion = 1
	cursorBody    = 1 + 8 + 16 + 8
	cursorMACLen  = 16
	cursorLen     = cursorBody + cursorMACLen
)

type cursorSigner struct{ key []byte }

// CursorKey derives the cursor-signing key from a server secret (the JWT
// secret), so every API process signs and accepts the same cursors.
func CursorKey(secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("guidepost/guides/nearby-cursor/v1"))
	return m.Sum(nil)
}

// fingerprint names a query for its cursors: a cursor is only valid for the
// same point, radius and tag (the page size may change).
func fingerprint(lat, lng, radius float64, tag string) []byte {
	h := sha256.New()
	var b [24]byte
	binary.BigEndian.PutUint64(b[0:], math.Float64bits(lat))
	binary.BigEndian.PutUint64(b[8:], math.Float64bits(lng))
	binary.BigEndian.PutUint64(b[16:], math.Float64bits(radius))
	h.Write(b[:])
	h.Write([]byte(tag))
	return h.Sum(nil)[:8]
}

func (s cursorSigner) mac(body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(body)
	return m.Sum(nil)[:cursorMACLen]
}

func (s cursorSigner) encode(fp []byte, at Position) string {
	id, err := uuid.Parse(at.ID)
	if err != nil {
		return "" // ids come from the store; never happens
	}
	b := make([]byte, 0, cursorLen)
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(at.DistanceM))
	b = append(b, id[:]...)
	b = append(b, fp...)
	b = append(b, s.mac(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decode returns the position, or a message for the client.
func (s cursorSigner) decode(cursor string, fp []byte) (Position, string) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != cursorLen || b[0] != cursorVersion {
		return Position{}, "is not a cursor this server issued"
	}
	if !hmac.Equal(s.mac(b[:cursorBody]), b[cursorBody:]) {
		return Position{}, "is not a cursor this server issued"
	}
	if !hmac.Equal(b[25:33], fp) {
		return Position{}, "belongs to another query: lat, lng, radius_m and tag must stay the same"
	}
	d := math.Float64frombits(binary.BigEndian.Uint64(b[1:9]))
	var id uuid.UUID
	copy(id[:], b[9:25])
	if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
		return Position{}, "is not a cursor this server issued"
	}
	return Position{DistanceM: d, ID: id.String()}, ""
}
