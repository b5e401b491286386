package blocks

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
)

// Page sizes of GET /v1/me/blocks.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Service implements the block use cases.
type Service struct {
	store Store
	clock guidepost.Clock
	max   int
}

// Deps are what the use cases consume.
type Deps struct {
	Store Store
	Clock guidepost.Clock
}

// Config bounds blocks.
type Config struct {
	Max int // BLOCKS_MAX: users one user may block
}

// DefaultConfig has every default. The cap on one user's blocks is
// enough for anyone being harassed, small enough that a set stays a few
// kilobytes in every process's memory and one indexed exclusion in a
// query.
func DefaultConfig() Config { return Config{Max: 1000} }

// New wires the use cases; a zero Max takes DefaultConfig's.
func New(deps Deps, cfg Config) *Service {
	guidepost.Default(&cfg.Max, DefaultConfig().Max)
	return &Service{store: deps.Store, clock: deps.Clock, max: cfg.Max}
}

// Max is the most users one user may block.
func (s *Service) Max() int { return s.max }

// Block makes blockerID block userID; blocking again returns the block
// as it is.
func (s *Service) Block(ctx context.Context, blockerID, userID string) (Block, error) {
	id, err := checkUser(blockerID, userID)
	if err != nil {
		return Block{}, err
	}
	bid, err := uuid.NewV7()
	if err != nil {
		return Block{}, err
	}
	return s.store.Block(ctx, blockerID, id, bid.String(), s.clock.Now().UTC().Truncate(time.Microsecond), s.max)
}

// Unblock removes blockerID's block of userID; unblocking twice, or a
// user never blocked, is a success. An id that names no user is ENOTFOUND,
// so a client learns of its mistake.
func (s *Service) Unblock(ctx context.Context, blockerID, userID string) error {
	id, err := checkUser(blockerID, userID)
	if err != nil {
		return err
	}
	return s.store.Unblock(ctx, blockerID, id)
}

// Page is a page of the caller's blocks.
type Page struct {
	Items      []Block
	NextCursor string // "" on the last page
}

// List pages through blockerID's blocks, newest first.
func (s *Service) List(ctx context.Context, blockerID string, limit *int, cursor string) (Page, error) {
	n, before, err := guidepost.CheckPage(limit, cursor, DefaultLimit, MaxLimit)
	if err != nil {
		return Page{}, err
	}
	items, err := s.store.List(ctx, blockerID, before, n+1)
	if err != nil {
		return Page{}, err
	}
	page := Page{Items: items}
	if len(items) > n {
		page.Items = items[:n]
		page.NextCursor = guidepost.PageCursor(items[n-1].ID)
	}
	return page, nil
}

// checkUser reads the user_id of a route: another account's id, in its
// canonical form.
func checkUser(blockerID, userID string) (string, error) {
	u, err := uuid.Parse(userID)
	if err != nil || len(userID) != 36 {
		return "", ErrNoSuchUser
	}
	if id := u.String(); id != blockerID {
		return id, nil
	}
	return "", &guidepost.Error{Code: guidepost.EUNPROCESSABLE, Message: "user_id: you cannot block yourself",
		Fields: []guidepost.FieldError{guidepost.Field("user_id", guidepost.FSELF, "is your own account: you cannot block yourself")}}
}

// ErrNoSuchUser is the answer for a user_id that names no account.
var ErrNoSuchUser = &guidepost.Error{Code: guidepost.ENOTFOUND, Message: "user_id: no such user",
	Fields: []guidepost.FieldError{guidepost.Field("user_id", guidepost.FNOTFOUND, "names no user")}}

// ErrTooMany is the answer for a block past the cap.
func ErrTooMany(max int) error {
	msg := fmt.Sprintf("you block %d users, the most allowed: unblock someone first", max)
	return &guidepost.Error{Code: guidepost.EUNPROCESSABLE, Message: "user_id: " + msg,
		Fields: []guidepost.FieldError{guidepost.Field("user_id", guidepost.FLIMITREACHED, msg)}}
}
