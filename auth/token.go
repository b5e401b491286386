package auth

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/guidepost/guidepost"
)

const issuer = "guidepost"

// Tokens signs and verifies HS256 access tokens. The clock is injected so a
// test can see a token expire without waiting.
type Tokens struct {
	secret []byte
	ttl    time.Duration
	clock  guidepost.Clock
	seen   verifiedTokens
	reader *tokenReader
}

// NewTokens builds a signer; secret must be the configured JWT_SECRET.
func NewTokens(secret string, ttl time.Duration, clock guidepost.Clock) *Tokens {
	key := []byte(secret)
	return &Tokens{secret: key, ttl: ttl, clock: clock, seen: newVerifiedTokens(clock.Now), reader: newTokenReader(key)}
}

// claims name the user and the session the token belongs to: a token is
// honoured only while its session is live (see Service.Authenticate).
type claims struct {
	jwt.RegisteredClaims
	SessionID string `json:"sid,omitempty"`
}

// Issue returns a signed token naming userID and its session.
func (t *Tokens) Issue(userID, sessionID string) (string, error) {
	now := t.clock.Now()
	c := claims{RegisteredClaims: jwt.RegisteredClaims{
		Issuer:    issuer,
		Subject:   userID,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(t.ttl)),
	}, SessionID: sessionID}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.secret)
}

// Verify returns the caller a valid token names. A token of ours whose
// only fault is its age is ETOKENEXPIRED, so a client knows to refresh
// rather than sign in again; any other failure is EUNAUTHORIZED, the
// reason kept in the wrapped error. It checks the signature and times
// only: whether the session is still live is the service's question.
func (t *Tokens) Verify(token string) (Caller, error) {
	now := t.clock.Now()
	if caller, ok := t.seen.get(token, now); ok {
		return caller, nil
	}
	caller, exp, ok := t.reader.read(token, now)
	var err error
	if !ok {
		caller, exp, err = t.parse(token, now)
	}
	switch {
	case err == nil:
		t.seen.put(token, caller, exp)
		return caller, nil
	case errors.Is(err, jwt.ErrTokenExpired) && t.onlyExpired(token):
		return Caller{}, guidepost.Wrap(guidepost.ETOKENEXPIRED, err, "the access token has expired: get a new one with your refresh token")
	}
	return Caller{}, guidepost.Wrap(guidepost.EUNAUTHORIZED, err, "the access token is invalid")
}

// parse checks token with the JWT library at now: the way for every
// token the reader cannot vouch for, and the reference it is tested
// against.
func (t *Tokens) parse(token string, now time.Time) (Caller, time.Time, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, t.key, t.rules(func() time.Time { return now })...)
	if err == nil && (c.Subject == "" || c.SessionID == "") {
		// A token without a session could never be revoked.
		err = errors.New("token names no subject or no session")
	}
	if err != nil {
		return Caller{}, time.Time{}, err
	}
	return Caller{UserID: c.Subject, SessionID: c.SessionID}, c.ExpiresAt.Time, nil // WithExpirationRequired: never nil here
}

func (t *Tokens) key(*jwt.Token) (any, error) { return t.secret, nil }

// rules are the library's checks. tokenReader makes the same by hand: a
// rule added here must be added there.
func (t *Tokens) rules(now func() time.Time) []jwt.ParserOption {
	return []jwt.ParserOption{
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(now),
	}
}

// onlyExpired reports whether token, read just before it expired, passes
// every check: the signature is ours and nothing but the time is wrong.
// A forged or malformed token is never called expired.
func (t *Tokens) onlyExpired(token string) bool {
	var c claims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &c); err != nil || c.ExpiresAt == nil {
		return false
	}
	before := c.ExpiresAt.Add(-time.Second)
	_, err := jwt.ParseWithClaims(token, &claims{}, t.key, t.rules(func() time.Time { return before })...)
	return err == nil && c.Subject != "" && c.SessionID != ""
}
