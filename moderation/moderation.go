// Package moderation is what app stores ask of user content: anyone
// signed in reports a guide, a photo or a user; moderators work the queue
// of open reports and act (hide, restore, remove, suspend, unsuspend,
// dismiss), every action recorded in an audit log; and enough distinct
// established reporters hold a target off every public surface until a
// moderator looks.
package moderation

import (
	"time"
)

// TargetType is what a report or an action is about.
type TargetType string

const (
	TargetGuide TargetType = "guide"
	TargetPhoto TargetType = "photo"
	TargetUser  TargetType = "user"
)

// Target names one guide, photo or user.
type Target struct {
	Type TargetType
	ID   string
}

// Reason is why a reporter objects.
type Reason string

// Reasons are the reasons a report may give, in the order clients list them.
var Reasons = []Reason{"spam", "sexual", "violence", "harassment", "illegal", "privacy", "other"}

// Action is what a moderator does to a target.
type Action string

const (
	Hide      Action = "hide"      // a guide or photo leaves every public surface; its author still sees it, labelled
	Restore   Action = "restore"   // a hidden guide or photo comes back
	Remove    Action = "remove"    // a guide or photo is deleted as its owner's own delete would
	Suspend   Action = "suspend"   // a user's sessions end and their content is hidden
	Unsuspend Action = "unsuspend" // the suspension ends; what it hid comes back
	Dismiss   Action = "dismiss"   // the open reports on a target close, and an automatic hold lifts
)

// Actions are every action, in the order the API documents them.
var Actions = []Action{Hide, Restore, Remove, Suspend, Unsuspend, Dismiss}

// Report statuses: a report is open until an action on its target closes
// it; Outcome is then that action.
const (
	StatusOpen   = "open"
	StatusClosed = "closed"
)

// Report is one account's report of a target.
type Report struct {
	ID         string
	ReporterID string
	Target     Target
	Reason     Reason
	Note       string
	Status     string
	Outcome    Action // once closed
	CreatedAt  time.Time
	ClosedAt   time.Time // zero while open
}

// State is a target as it stands, for the queue and for the checks before
// a report or an action.
type State struct {
	Target
	AuthorID     string // a guide's author, a photo's owner, a user's own id
	Label        string // a guide's title, a user's display name; "" for a photo
	HiddenAt     time.Time
	HiddenReason string
	Suspended    bool // a user only
	Deleted      bool // in the queue only: deleted since it was reported
}

// Hidden reports whether the target is held off the public surfaces.
func (s State) Hidden() bool { return !s.HiddenAt.IsZero() }

// QueueItem is one target of the open queue.
type QueueItem struct {
	State     State
	Reporters int       // distinct accounts with an open report
	Reasons   []Reason  // every reason given, most given first
	Oldest    time.Time // the oldest open report: the queue's order
	Newest    time.Time
}

// Entry is one line of the audit log: who did what to which target, when
// and why. ModeratorID is "" for an automatic hold.
type Entry struct {
	ID           string
	ModeratorID  string
	Action       Action
	Target       Target
	TargetAuthor string // whom the outcome is told to; "" when unknown
	Reason       string
	Reports      int // open reports the action closed
	CreatedAt    time.Time
}

// Role is what the moderation routes need to know of a caller.
type Role struct {
	Moderator bool
	Suspended bool
}
