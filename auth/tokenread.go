package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ourHeader is the JOSE header every token Issue signs carries, encoded:
// {"alg":"HS256","typ":"JWT"}.
var ourHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// segment decodes a token's parts: strictly, so the reader declines what
// the library's lenient decoding would also read.
var segment = base64.RawURLEncoding.Strict()

// ourClaims is the layout of the claims Issue signs, as encoding/json
// writes them: the fields of jwt.RegisteredClaims we set, in their order,
// then the session's id. Each hole holds an id or a count of seconds.
var ourClaims = [...]string{`{"iss":"` + issuer + `","sub":"`, `","exp":`, `,"iat":`, `,"sid":"`, `"}`}

// tokenReader accepts, without the JWT library, a token laid out exactly
// as Issue writes it, signed with our key and not yet expired. It never
// rejects, it only declines: a token it cannot vouch for (another
// layout, a bad signature, expired) goes to the library, which gives the
// reason. What it accepts the library accepts too, with the same caller
// and expiry (FuzzTokenReaderAcceptsOnlyWhatTheLibraryAccepts): the
// header is ours byte for byte, so the method is HS256; the signature is
// checked as the library checks it; the claims hold nothing but the
// issuer, ids without escapes, and whole seconds. It makes by hand the
// checks Tokens.rules asks of the library: a rule added there must be
// added here (TestTokenReaderKnowsTheRules). Why: the library parses
// both JSON documents with encoding/json, four fifths of a check, and in
// a like storm every tap of a user not seen yet pays it (profiled: 29 µs
// a tap, a fifth of the API's CPU for it).
type tokenReader struct {
	macs sync.Pool // hash.Hash: HMAC-SHA256 under our key, ready to Reset
}

func newTokenReader(key []byte) *tokenReader {
	return &tokenReader{macs: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

// read returns the caller and expiry of token when it can vouch for it
// at now; ok is false otherwise, for whatever reason.
func (r *tokenReader) read(token string, now time.Time) (c Caller, exp time.Time, ok bool) {
	header, rest, _ := strings.Cut(token, ".")
	payload, sig, found := strings.Cut(rest, ".")
	var buf [256]byte
	if header != ourHeader || !found || segment.DecodedLen(len(payload)) > len(buf) ||
		!r.signed(token[:len(header)+1+len(payload)], sig) {
		return Caller{}, time.Time{}, false
	}
	n, err := segment.Decode(buf[:], []byte(payload))
	if err != nil {
		return Caller{}, time.Time{}, false
	}
	sub, expS, sid, ok := splitClaims(string(buf[:n]))
	if exp = time.Unix(expS, 0); !ok || !now.Before(exp) {
		return Caller{}, time.Time{}, false
	}
	return Caller{UserID: sub, SessionID: sid}, exp, true
}

// signed reports whether sig is the HMAC-SHA256 of signing under our key.
func (r *tokenReader) signed(signing, sig string) bool {
	var want [sha256.Size]byte
	if segment.DecodedLen(len(sig)) != len(want) {
		return false
	}
	if n, err := segment.Decode(want[:], []byte(sig)); err != nil || n != len(want) {
		return false
	}
	mac := r.macs.Get().(hash.Hash)
	defer r.macs.Put(mac)
	mac.Reset()
	mac.Write([]byte(signing))
	var got [sha256.Size]byte
	return hmac.Equal(mac.Sum(got[:0]), want[:])
}

// splitClaims reads claims laid out as ourClaims: the subject, the
// expiry in seconds and the session; ok is false for anything else.
func splitClaims(s string) (sub string, exp int64, sid string, ok bool) {
	var holes [4]string
	for i, lit := range ourClaims[:4] {
		rest, found := strings.CutPrefix(s, lit)
		if !found {
			return "", 0, "", false
		}
		end := strings.Index(rest, ourClaims[i+1])
		if end <= 0 {
			return "", 0, "", false
		}
		holes[i], s = rest[:end], rest[end:]
	}
	if s != ourClaims[4] || !plainID(holes[0]) || !plainID(holes[3]) || !seconds(holes[2]) || !seconds(holes[1]) {
		return "", 0, "", false
	}
	exp, err := strconv.ParseInt(holes[1], 10, 64)
	return holes[0], exp, holes[3], err == nil
}

// plainID is an id JSON writes as it is: letters, digits and dashes.
func plainID(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-') {
			return false
		}
	}
	return s != ""
}

// seconds is a count of seconds as the library writes one: digits, no
// sign, no leading zero, and few enough that a float64 holds it exactly
// (the library reads it as one).
func seconds(s string) bool {
	if s == "" || len(s) > 15 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
