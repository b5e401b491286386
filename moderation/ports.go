package moderation

import (
	"context"
	"time"
)

// Store keeps reports, holds and the audit log. Each method is one
// transaction; errors use the guidepost vocabulary (ENOTFOUND for a
// target that does not exist or was deleted).
type Store interface {
	// Target reads a target as it stands.
	Target(ctx context.Context, t Target) (State, error)
	// File stores r, unless its reporter already has an open report on its
	// target: that one is returned instead (created false). In the same
	// transaction, when the target is not hidden and h's count of distinct
	// reporters is reached, the target is hidden with cause "reports" and
	// hold (its Reports filled in) is recorded and returned.
	File(ctx context.Context, r Report, h HoldRule, hold Entry) (rep Report, created bool, held *Entry, err error)
	// ReportsBy lists a reporter's reports newest first, older than before
	// (an id, "" for the newest), at most limit.
	ReportsBy(ctx context.Context, reporterID, before string, limit int) ([]Report, error)
	// Queue lists the targets with open reports, oldest report first,
	// after the target whose oldest report was after (nil for the first
	// page), at most limit.
	Queue(ctx context.Context, after *QueueCursor, limit int) ([]QueueItem, error)
	// Apply does e.Action to its target (Remove changes nothing: the
	// target's owner path deleted it), closes the target's open reports
	// with it as their outcome, and records e with the number closed.
	Apply(ctx context.Context, e Entry) (Applied, error)
	// Audit lists the log newest first, older than before, at most limit.
	Audit(ctx context.Context, before string, limit int) ([]Entry, error)
	// Entry reads one line of the log.
	Entry(ctx context.Context, id string) (Entry, error)
	// Role tells whether an account is a moderator and whether it is
	// suspended; an unknown or deleted account is ENOTFOUND.
	Role(ctx context.Context, userID string) (Role, error)
	// SetModerator grants or revokes the role of the account with email.
	SetModerator(ctx context.Context, email string, on bool) (userID string, err error)
}

// HoldRule is when reports hold a target: Reporters distinct accounts
// with open reports, not counting guests created after GuestsBefore.
type HoldRule struct {
	Reporters    int
	GuestsBefore time.Time
}

// QueueCursor is where a queue page ended.
type QueueCursor struct {
	Oldest time.Time
	Target Target
}

// Applied is what an action changed: the entry as recorded, and the
// photos it hid or showed again (their public objects move).
type Applied struct {
	Entry  Entry
	Hidden []string
	Shown  []string
}

// Deleter deletes what its owner may delete, as the owner's own delete
// does (guides.Service and media.Service).
type Deleter interface {
	Delete(ctx context.Context, id, ownerID string) error
}

// Photos is what moderation needs of the photo feature: deletion, and
// moving a hidden photo's public objects out of reach and back.
type Photos interface {
	Deleter
	Withhold(ctx context.Context, id string) error
	Release(ctx context.Context, id string) error
}

// Notifier tells a target's author, on every API process, that an action
// touched their content (redisevents.Redis).
type Notifier interface {
	Moderated(ctx context.Context, userID, entryID string) error
}
