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

// Issue returns a signed token naming userID.
func (t *Tokens) Issue(userID string) (string, error) {
	now := t.clock.Now()
	claims := jwt.RegisteredClaims{
		Issuer:    issuer,
		Subject:   userID,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(t.ttl)),
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
}

// Verify returns the user id of a valid token. Every failure is the same
// EUNAUTHORIZED to the client; the reason stays in the wrapped error.
func (t *Tokens) Verify(token string) (string, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(t.clock.Now),
	)
	if err == nil && claims.Subject == "" {
		err = errors.New("token has no subject")
	}
	if err != nil {
		msg := "the access token is invalid"
		if errors.Is(err, jwt.ErrTokenExpired) {
			msg = "the access token has expired"
		}
		return "", guidepost.Wrap(guidepost.EUNAUTHORIZED, err, msg)
	}
	return claims.Subject, nil
}
