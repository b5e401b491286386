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
}

// NewTokens builds a signer; secret must be the configured JWT_SECRET.
func NewTokens(secret string, ttl time.Duration, clock guidepost.Clock) *Tokens {
	return &Tokens{secret: []byte(secret), ttl: ttl, clock: clock}
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

// Verify returns the caller a valid token names. Every failure is the same
// EUNAUTHORIZED to the client; the reason stays in the wrapped error. It
// checks the signature and times only: whether the session is still live is
// the service's question.
func (t *Tokens) Verify(token string) (Caller, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(t.clock.Now),
	)
	if err == nil && c.Subject == "" {
		err = errors.New("token has no subject")
	}
	if err != nil {
		msg := "the access token is invalid"
		if errors.Is(err, jwt.ErrTokenExpired) {
			msg = "the access token has expired"
		}
		return Caller{}, guidepost.Wrap(guidepost.EUNAUTHORIZED, err, msg)
	}
	return Caller{UserID: c.Subject, SessionID: c.SessionID}, nil
}
