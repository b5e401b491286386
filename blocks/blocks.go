// Package blocks is one user blocking another: the blocked user's guides
// and photos leave the blocker's answers, and the blocked user can no
// longer like the blocker's guides. It owns the block, the set of users
// one user blocks, and the use cases of /v1/me/blocks; the features that
// filter their answers (guides, media) consume a Set through interfaces
// of their own.
package blocks

import (
	"context"
	"slices"
	"time"
)

// Block is one user blocked by the caller, as GET /v1/me/blocks lists it.
type Block struct {
	ID        string // the block's own id (UUIDv7): lists page by it, newest first
	User      User
	CreatedAt time.Time
}

// User is the public face of a blocked user.
type User struct {
	ID          string
	DisplayName string
}

// Set is what one user's blocks mean to the answers they are given: the
// users they block, and whether anyone blocks them. It is immutable, so a
// cache hands the same Set to every request.
type Set struct {
	ids       map[string]struct{}
	sorted    []string
	blockedBy bool
}

// NewSet builds the set of a user who blocks ids, and is blocked by
// someone when blockedBy.
func NewSet(ids []string, blockedBy bool) Set {
	s := Set{blockedBy: blockedBy}
	if len(ids) == 0 {
		return s
	}
	s.ids = make(map[string]struct{}, len(ids))
	for _, id := range ids {
		s.ids[id] = struct{}{}
	}
	s.sorted = slices.Sorted(func(yield func(string) bool) {
		for id := range s.ids {
			if !yield(id) {
				return
			}
		}
	})
	return s
}

// Has reports whether the user blocks id.
func (s Set) Has(id string) bool {
	_, ok := s.ids[id]
	return ok
}

// Len is how many users the user blocks.
func (s Set) Len() int { return len(s.sorted) }

// IDs are the users blocked, sorted; callers must not change them.
func (s Set) IDs() []string { return s.sorted }

// BlockedBySomeone reports whether any user blocks this one, so a like of
// theirs must be checked against the guide's author.
func (s Set) BlockedBySomeone() bool { return s.blockedBy }

// Weight is roughly the bytes the set holds, for a cache's bound.
func (s Set) Weight() uint32 { return uint32(64 + 72*len(s.sorted)) }

// Store keeps blocks. Public methods own their transaction; every error is
// in guidepost's vocabulary.
type Store interface {
	// Block records that blockerID blocks blockedID (id and at are the new
	// block's) and returns the block, or the existing one unchanged. A
	// blockedID that names no live account is ENOTFOUND naming user_id; a
	// blocker who already blocks max users is EUNPROCESSABLE naming
	// user_id, counted under a lock on the blocker so that racing blocks
	// cannot pass max together.
	Block(ctx context.Context, blockerID, blockedID, id string, at time.Time, max int) (Block, error)
	// Unblock removes the block if there is one.
	Unblock(ctx context.Context, blockerID, blockedID string) error
	// List pages blockerID's blocks newest first, those older than before
	// (a block id) when it is set, at most limit; blocked accounts since
	// deleted are left out.
	List(ctx context.Context, blockerID, before string, limit int) ([]Block, error)
	// Of reads userID's Set now.
	Of(ctx context.Context, userID string) (Set, error)
}

// Feed announces committed blocks and unblocks to every process, so that
// a cache of Sets can drop the ones that changed.
type Feed interface {
	// WatchBlocks calls w until ctx ends: Synced when it (re)connects,
	// Changed for each committed block or unblock (delivered after the
	// commit), Lost when the feed drops; it then reconnects on its own. It
	// returns only once it has stopped calling w.
	WatchBlocks(ctx context.Context, w Watcher) error
}

// Watcher hears the feed.
type Watcher interface {
	Synced()
	Changed(blockerID, blockedID string)
	Lost(err error)
}
