package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
)

// refreshPrefix marks our refresh tokens, so a client that swaps the two
// tokens gets a clear answer and secret scanners can recognise a leak.
const refreshPrefix = "gpr_"

// newRefreshToken returns a random token and the hash that is stored.
func newRefreshToken() (token string, hash []byte) {
	token = refreshPrefix + rand.Text() // 130 random bits
	return token, hashRefresh(token)
}

func hashRefresh(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

// session opens a new session for u: a row, its first refresh token, and
// an access token naming both.
func (s *Service) session(ctx context.Context, u User) (Session, error) {
	row, refresh, hash, err := s.newSession(u)
	if err != nil {
		return Session{}, err
	}
	if err := s.store.CreateSession(ctx, row, hash); err != nil {
		return Session{}, err
	}
	return s.issue(u, row, refresh)
}

// newSession is the row of a session for u starting now, and its first
// refresh token with the hash that is stored.
func (s *Service) newSession(u User) (row SessionRow, refresh string, hash []byte, err error) {
	id, err := uuid.NewV7()
	if err != nil {
		return SessionRow{}, "", nil, err
	}
	r := s.renewal()
	row = SessionRow{ID: id.String(), UserID: u.ID, CreatedAt: r.Now, ExpiresAt: r.Until(r.Now)}
	refresh, hash = newRefreshToken()
	return row, refresh, hash, nil
}

func (s *Service) issue(u User, row SessionRow, refresh string) (Session, error) {
	tok, err := s.tokens.Issue(u.ID, row.ID)
	if err != nil {
		return Session{}, err
	}
	return Session{User: u, AccessToken: tok, ExpiresIn: s.tokens.ttl,
		RefreshToken: refresh, RefreshExpiresIn: row.ExpiresAt.Sub(s.now())}, nil
}

var errRefresh = guidepost.Errorf(guidepost.EUNAUTHORIZED, "the refresh token is invalid, expired or revoked; sign in again")

// Refresh exchanges a refresh token for a new access token and the next
// refresh token, and moves the session's end to REFRESH_TTL from now (up to
// its ceiling). The presented token stops working, except that for the
// grace after its use it may be presented again: a client whose answer
// was lost, or two requests of one app racing, each get a working pair.
// Presented again after the grace, it means two parties hold it (it
// leaked): the whole session is revoked, so the thief's copy dies with
// the owner's.
func (s *Service) Refresh(ctx context.Context, refreshToken string) (Session, error) {
	if !strings.HasPrefix(refreshToken, refreshPrefix) {
		return Session{}, errRefresh
	}
	hash := hashRefresh(refreshToken)
	if err := s.refreshAllowed(ctx, hash); err != nil {
		return Session{}, err
	}
	next, nextHash := newRefreshToken()
	row, outcome, err := s.store.RotateRefresh(ctx, hash, nextHash, s.renewal())
	switch {
	case err != nil:
		return Session{}, err
	case outcome == Reused:
		return Session{}, guidepost.Errorf(guidepost.EUNAUTHORIZED, "this refresh token was already used; the session is revoked, sign in again")
	case outcome != Rotated && outcome != Retried:
		return Session{}, errRefresh
	}
	u, err := s.store.UserByID(ctx, row.UserID)
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return Session{}, errRefresh
	}
	if err != nil {
		return Session{}, err
	}
	return s.issue(u, row, next)
}

// refreshAllowed spends one presentation of the token whose hash is given
// (LoginLimits.PerRefreshToken), refusing past the rate before any row is
// read or written.
func (s *Service) refreshAllowed(ctx context.Context, hash []byte) error {
	r := s.limits.PerRefreshToken
	if s.limits.limiter == nil || r.Off() {
		return nil
	}
	res := s.limits.limiter.Take(ctx, "refresh:"+hex.EncodeToString(hash[:16]), r, 1)
	if !res.Allowed {
		return guidepost.RateLimited(r, res, fmt.Sprintf("this refresh token was presented too often (%s allows %d per %s); retry in %d s",
			r.Name, r.Count, r.Period, int(res.RetryAfter.Seconds())+1))
	}
	return nil
}

// Logout revokes the caller's session: its access and refresh tokens stop
// working at once.
func (s *Service) Logout(ctx context.Context, c Caller) error {
	if c.SessionID == "" {
		return nil
	}
	return s.store.RevokeSession(ctx, c.SessionID, s.now())
}

// ErrSessionEnded answers a token whose session was revoked, has
// expired, or whose account was deleted.
var ErrSessionEnded = guidepost.Errorf(guidepost.EUNAUTHORIZED, "the session has ended; sign in again")

// Authenticate maps a bearer token to its caller. Besides the signature
// and expiry, the token's session must be live: one primary-key lookup in
// PostgreSQL per authenticated request, so that a logout, a password
// change or a deleted account takes effect on every server at once.
func (s *Service) Authenticate(ctx context.Context, token string) (Caller, error) {
	c, err := s.tokens.Verify(token)
	if err != nil {
		return Caller{}, err
	}
	live, err := s.store.SessionLive(ctx, c, s.now())
	if err != nil {
		return Caller{}, err
	}
	if !live {
		return Caller{}, ErrSessionEnded
	}
	return c, nil
}

// VerifyToken is Authenticate without the session check: the signature
// and expiry only. It is for a request whose only effect is one write
// that checks the session live in its own statement, as a like does
// (guides.Liker): a logout still takes effect at once, and the request
// makes one round trip to PostgreSQL instead of two in a row. Nothing
// else may be done for the caller it returns.
func (s *Service) VerifyToken(token string) (Caller, error) {
	return s.tokens.Verify(token)
}

// PasswordChange is a signed-in caller's request for a new password.
// ClientAddr is the address failed attempts are counted under.
type PasswordChange struct {
	UserID     string
	Current    string
	Next       string
	ClientAddr string
}

// ChangePassword checks the current password, stores the new one and
// revokes every session of the account (every device signs in again);
// the caller gets a fresh session. A wrong current password is a failed
// log-in, counted against the address and the account's email: a stolen
// access token is no way to guess the password without limit.
func (s *Service) ChangePassword(ctx context.Context, in PasswordChange) (Session, error) {
	if err := checkPasswordRule("new_password", in.Next); err != nil {
		return Session{}, err
	}
	u, err := s.store.UserByID(ctx, in.UserID)
	if err != nil {
		return Session{}, err
	}
	if u.PasswordHash == "" {
		return Session{}, &guidepost.Error{Code: guidepost.ECONFLICT, Message: "a guest account has no password; upgrade it first",
			Fields: []guidepost.FieldError{guidepost.Field("current_password", guidepost.FNOPASSWORD, "a guest account has none: upgrade it (POST /v1/auth/upgrade)")}}
	}
	var sess Session
	err = s.guarded(ctx, in.ClientAddr, u.Email, func() error {
		var ok bool
		if err := s.withHashSlot(ctx, func() (err error) { ok, err = checkPassword(u.PasswordHash, in.Current); return }); err != nil {
			return err
		}
		if !ok {
			return guidepost.Invalid(guidepost.Field("current_password", guidepost.FINCORRECT, "is incorrect"))
		}
		var hash string
		if err := s.withHashSlot(ctx, func() (err error) { hash, err = hashPassword(in.Next); return }); err != nil {
			return err
		}
		if err := s.store.SetPassword(ctx, u.ID, hash, s.now()); err != nil {
			return err
		}
		u.PasswordHash = hash
		sess, err = s.session(ctx, u)
		return err
	})
	return sess, err
}

// Upgrade turns the caller's guest account into a full one in place: the
// same id, so every guide, photo and like it made stays its own. The
// answer is a new session for the full account. Every other session of
// the guest ends: a guest's token is its only credential, and a copy of
// it must not open the account now that it has a password. The caller's
// own session stays, so a lost answer does not sign the app out. A taken email is
// ECONFLICT before any hashing, counted as a failed attempt, as at sign-up.
func (s *Service) Upgrade(ctx context.Context, c Caller, in SignupInput) (Session, error) {
	if err := in.validate(); err != nil {
		return Session{}, err
	}
	u, err := s.store.UserByID(ctx, c.UserID)
	if err != nil {
		return Session{}, err
	}
	if !u.Guest {
		return Session{}, errNotGuest
	}
	var sess Session
	err = s.guarded(ctx, in.ClientAddr, in.Email, func() error {
		if err := s.emailFree(ctx, in.Email); err != nil {
			return err
		}
		var hash string
		if err := s.withHashSlot(ctx, func() (err error) { hash, err = hashPassword(in.Password); return }); err != nil {
			return err
		}
		u.Email, u.DisplayName, u.PasswordHash, u.Guest = in.Email, in.DisplayName, hash, false
		err := s.store.Upgrade(ctx, u, c.SessionID, s.now())
		switch guidepost.ErrorCode(err) {
		case "":
		case guidepost.ECONFLICT:
			return emailTaken(err)
		case guidepost.ENOTFOUND:
			return errNotGuest
		default:
			return err
		}
		sess, err = s.session(ctx, u)
		return err
	})
	return sess, err
}

var errNotGuest = &guidepost.Error{Code: guidepost.ECONFLICT, Message: "this account is not a guest account",
	Fields: []guidepost.FieldError{guidepost.Field("", guidepost.FNOTGUEST, "only a guest account can be upgraded; this one has an email and password")}}
