package auth

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/mail"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
)

// Service implements the account use cases.
type Service struct {
	store    Store
	tokens   *Tokens
	clock    guidepost.Clock
	sessions SessionPolicy
	// dummyHash is checked against when an email is unknown, so a failed
	// log-in takes as long whether or not the account exists.
	dummyHash string
	// hashing bounds concurrent argon2id runs: each takes 19 MiB and a core
	// for ~50 ms, and sign-up and log-in are open to anyone.
	hashing chan struct{}
	limits  LoginLimits

	inflight guidepost.InFlight // log-ins being checked, by client address
}

// Deps are what the service consumes.
type Deps struct {
	Store  Store
	Tokens *Tokens
	Clock  guidepost.Clock
	// Limiter counts Config.Login's rates, shared by every API process;
	// nil: no rates (the in-flight cap still holds).
	Limiter Limiter
}

// Config is the session policy and the log-in limits.
type Config struct {
	Sessions SessionPolicy
	Login    LoginLimits
}

// DefaultConfig is the service's configuration with every default: the
// numbers config.Parse starts from. A session lasts 30 days unused (a
// phone that opens the app once a month stays signed in), a year at most,
// and a refresh is forgiven a 10 s retry.
func DefaultConfig() Config {
	return Config{
		Sessions: SessionPolicy{TTL: 30 * 24 * time.Hour, MaxAge: 365 * 24 * time.Hour, Grace: 10 * time.Second},
		Login: LoginLimits{
			PerAddr:         guidepost.Rate{Name: "login_ip", Count: 30, Period: 10 * time.Minute},
			PerEmail:        guidepost.Rate{Name: "login_email", Count: 10, Period: 10 * time.Minute},
			InFlightPerAddr: 2,
			PerRefreshToken: guidepost.Rate{Name: "refresh_token", Count: 5, Period: time.Minute},
		},
	}
}

// withDefaults fills a zero TTL or MaxAge from DefaultConfig; the grace
// and the log-in limits are taken as given (zero: none). The ceiling is
// never below TTL.
func (c Config) withDefaults() Config {
	def := DefaultConfig().Sessions
	p := &c.Sessions
	guidepost.Default(&p.TTL, def.TTL)
	guidepost.Default(&p.MaxAge, def.MaxAge)
	p.Grace = max(0, p.Grace)
	p.MaxAge = max(p.MaxAge, p.TTL)
	return c
}

// New wires the account use cases.
func New(deps Deps, cfg Config) *Service {
	h, err := hashPassword(rand.Text())
	if err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	cfg = cfg.withDefaults()
	limits := cfg.Login
	limits.limiter = deps.Limiter
	return &Service{store: deps.Store, tokens: deps.Tokens, clock: deps.Clock, dummyHash: h,
		hashing: make(chan struct{}, max(2, runtime.NumCPU())), sessions: cfg.Sessions,
		limits: limits}
}

// SignupInput is a new account's fields. ClientAddr is the address failed
// attempts are counted under ("" counts them only per email).
type SignupInput struct {
	Email       string
	Password    string
	DisplayName string
	ClientAddr  string
}

func (in *SignupInput) validate() error {
	var f guidepost.Fields
	in.Email = strings.TrimSpace(in.Email)
	in.DisplayName = strings.TrimSpace(in.DisplayName)
	if msg := guidepost.TextProblem(in.Email, false); msg != "" {
		f.Add("email", guidepost.FINVALIDCHARS, msg)
	} else if addr, err := mail.ParseAddress(in.Email); err != nil || addr.Address != in.Email || len(in.Email) > 254 {
		f.Add("email", guidepost.FINVALIDFORMAT, "must be a valid email address")
	}
	f = append(f, guidepost.ErrorFields(checkPasswordRule("password", in.Password))...)
	checkDisplayName(&f, in.DisplayName)
	return f.Err()
}

// checkDisplayName wants 1 to 64 characters a person can read.
func checkDisplayName(f *guidepost.Fields, name string) {
	if n := utf8.RuneCountInString(name); n < 1 || n > 64 {
		f.Add("display_name", lengthCode(n, 64), "must be 1 to 64 characters")
	} else if msg := guidepost.TextProblem(name, false); msg != "" {
		f.Add("display_name", guidepost.FINVALIDCHARS, msg)
	}
}

const passwordRule = "must be 8 to 256 characters"

func checkPasswordRule(field, password string) error {
	if n := utf8.RuneCountInString(password); n < 8 || n > 256 {
		return guidepost.Invalid(guidepost.Field(field, lengthCode(n, 256), passwordRule))
	}
	return nil
}

// lengthCode names what is wrong with a text of n characters outside its
// bounds, whose maximum is max.
func lengthCode(n, max int) string {
	switch {
	case n == 0:
		return guidepost.FREQUIRED
	case n > max:
		return guidepost.FTOOLONG
	}
	return guidepost.FTOOSHORT
}

// Signup creates an account with a password. A taken email is ECONFLICT,
// answered before any hashing and counted as a failed attempt: the answer
// tells whether an email is registered, so it is rate limited like a
// wrong password.
func (s *Service) Signup(ctx context.Context, in SignupInput) (Session, error) {
	if err := in.validate(); err != nil {
		return Session{}, err
	}
	var sess Session
	err := s.guarded(ctx, in.ClientAddr, in.Email, func() error {
		if err := s.emailFree(ctx, in.Email); err != nil {
			return err
		}
		var hash string
		if err := s.withHashSlot(ctx, func() (err error) { hash, err = hashPassword(in.Password); return }); err != nil {
			return err
		}
		var err error
		sess, err = s.create(ctx, User{Email: in.Email, DisplayName: in.DisplayName, PasswordHash: hash})
		return err
	})
	return sess, err
}

// emailFree looks the email up, so that a taken one is answered without
// an argon2 run; the unique index still decides at insert.
func (s *Service) emailFree(ctx context.Context, email string) error {
	_, err := s.store.UserByEmail(ctx, email)
	switch guidepost.ErrorCode(err) {
	case guidepost.ENOTFOUND:
		return nil
	case "":
		return emailTaken(nil)
	}
	return err
}

func emailTaken(err error) error {
	return &guidepost.Error{Code: guidepost.ECONFLICT, Message: "an account with this email already exists",
		Fields: []guidepost.FieldError{guidepost.Field("email", guidepost.FTAKEN, "is already registered")}, Err: err}
}

// Guest creates an account with no credentials beyond its token.
func (s *Service) Guest(ctx context.Context) (Session, error) {
	return s.create(ctx, User{DisplayName: "Guest " + rand.Text()[:6], Guest: true})
}

func (s *Service) create(ctx context.Context, u User) (Session, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Session{}, err
	}
	u.ID, u.CreatedAt = id.String(), s.clock.Now().UTC().Truncate(time.Microsecond)
	row, refresh, hash, err := s.newSession(u)
	if err != nil {
		return Session{}, err
	}
	if err := s.store.CreateAccount(ctx, u, row, hash); err != nil {
		if guidepost.ErrorCode(err) == guidepost.ECONFLICT {
			return Session{}, emailTaken(err)
		}
		return Session{}, err
	}
	return s.issue(u, row, refresh)
}

// LoginInput is a log-in attempt. ClientAddr is the address failed
// attempts are counted under ("" counts them only per email); an IPv6 /64
// is counted with its /56 and /48 too (guidepost.AddrScopes).
type LoginInput struct {
	Email      string
	Password   string
	ClientAddr string
}

// Login checks a password. Both an unknown email and a wrong password are the
// same ECREDENTIALS, so the answer does not reveal which accounts exist.
// Over a LoginLimits rate it is ERATELIMITED before any hashing, so a
// password guesser costs the server almost nothing.
func (s *Service) Login(ctx context.Context, in LoginInput) (Session, error) {
	email := strings.TrimSpace(in.Email)
	if msg := guidepost.TextProblem(email, false); msg != "" || len(email) > 254 {
		// No account can have such an email: saying so reveals nothing.
		code := guidepost.FINVALIDCHARS
		if msg == "" {
			code, msg = guidepost.FTOOLONG, "must be at most 254 bytes"
		}
		return Session{}, guidepost.Invalid(guidepost.Field("email", code, msg))
	}
	var sess Session
	err := s.guarded(ctx, in.ClientAddr, email, func() (err error) {
		sess, err = s.login(ctx, email, in.Password)
		return err
	})
	return sess, err
}

func (s *Service) login(ctx context.Context, email, password string) (Session, error) {
	u, err := s.store.UserByEmail(ctx, email)
	hash := u.PasswordHash
	switch code := guidepost.ErrorCode(err); {
	case code == guidepost.ENOTFOUND:
		hash = s.dummyHash
	case err != nil:
		return Session{}, err
	case hash == "":
		hash = s.dummyHash // an account without a password cannot log in
	}
	var ok bool
	err = s.withHashSlot(ctx, func() (err error) { ok, err = checkPassword(hash, password); return })
	if guidepost.ErrorCode(err) == guidepost.EUNAVAILABLE || ctx.Err() != nil {
		return Session{}, err
	}
	if err != nil {
		return Session{}, fmt.Errorf("auth: user %s: %w", u.ID, err)
	}
	if !ok || hash == s.dummyHash {
		return Session{}, errCredentials
	}
	return s.session(ctx, u)
}

// errCredentials is a log-in refused for its email or password: a code of
// its own, so that a client's "signed out" handling (EUNAUTHORIZED) never
// fires on its log-in screen. One wording for both, as the answer must not
// reveal which accounts exist.
var errCredentials = &guidepost.Error{Code: guidepost.ECREDENTIALS, Message: "the email or password is incorrect",
	Fields: []guidepost.FieldError{guidepost.Field("password", guidepost.FINCORRECT, "the email or password is incorrect")}}

// withHashSlot runs fn when a hashing slot frees up within a second, and
// otherwise answers "unavailable" so a burst of log-ins sheds instead of
// piling up memory.
func (s *Service) withHashSlot(ctx context.Context, fn func() error) error {
	wait, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	select {
	case s.hashing <- struct{}{}:
	case <-wait.Done():
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return guidepost.Errorf(guidepost.EUNAVAILABLE, "too many sign-ins at once; retry shortly")
	}
	defer func() { <-s.hashing }()
	return fn()
}

// Me returns the caller's account.
func (s *Service) Me(ctx context.Context, userID string) (User, error) {
	return s.store.UserByID(ctx, userID)
}

// Rename changes the caller's display name (trimmed; 1 to 64 characters,
// as at sign-up) and returns the account. Guides show the new name at once,
// in lists too.
func (s *Service) Rename(ctx context.Context, userID, name string) (User, error) {
	var f guidepost.Fields
	name = strings.TrimSpace(name)
	checkDisplayName(&f, name)
	if err := f.Err(); err != nil {
		return User{}, err
	}
	return s.store.Rename(ctx, userID, name)
}
