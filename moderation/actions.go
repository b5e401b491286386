package moderation

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
)

// ActionInput is what a moderator sends.
type ActionInput struct {
	Action     string
	TargetType string
	TargetID   string
	Reason     string
}

// on lists the target types each action applies to.
var on = map[Action][]TargetType{
	Hide: {TargetGuide, TargetPhoto}, Restore: {TargetGuide, TargetPhoto}, Remove: {TargetGuide, TargetPhoto},
	Suspend: {TargetUser}, Unsuspend: {TargetUser}, Dismiss: {TargetGuide, TargetPhoto, TargetUser},
}

// Act does one action for moderatorID (the moderation routes' guard has
// checked the role) and records it. A target deleted meanwhile is
// ENOTFOUND naming target_id; a restore of what is not hidden, or an
// unsuspend of who is not suspended, ECONFLICT.
func (s *Service) Act(ctx context.Context, moderatorID string, in ActionInput) (Entry, error) {
	a, t, err := checkAction(in)
	if err != nil {
		return Entry{}, err
	}
	st, err := s.target(ctx, t)
	if err != nil {
		return Entry{}, err
	}
	if err := allowed(a, st, moderatorID); err != nil {
		return Entry{}, err
	}
	e, err := s.entry(moderatorID, a, t, st.AuthorID, in.Reason)
	if err != nil {
		return Entry{}, err
	}
	if a == Remove {
		if err := s.remove(ctx, st); err != nil {
			return Entry{}, targetError(err, t)
		}
	}
	done, err := s.deps.Store.Apply(ctx, e)
	if err != nil {
		return Entry{}, targetError(err, t)
	}
	s.actions.WithLabelValues(string(a), "moderator").Inc()
	s.deps.Log.InfoContext(ctx, "moderation: action", "action", a, "target_type", t.Type, "target_id", t.ID,
		"moderator_id", moderatorID, "reports_closed", done.Entry.Reports)
	s.after(ctx, done)
	return done.Entry, nil
}

func checkAction(in ActionInput) (Action, Target, error) {
	var f guidepost.Fields
	a := Action(in.Action)
	switch {
	case in.Action == "":
		f.Add("action", guidepost.FREQUIRED, "is required: one of "+list(Actions))
	case on[a] == nil:
		f.Add("action", guidepost.FINVALIDFORMAT, "must be one of "+list(Actions))
	}
	t := checkTarget(&f, in.TargetType, in.TargetID)
	if on[a] != nil && t.Type != "" && !slices.Contains(on[a], t.Type) && len(f) == 0 {
		f.Add("target_type", guidepost.FCONFLICT, string(a)+" applies to "+list(on[a])+" only")
	}
	if in.Reason == "" {
		f.Add("reason", guidepost.FREQUIRED, "is required: the audit log says why")
	}
	checkText(&f, "reason", in.Reason, MaxReason, true)
	return a, t, f.Err()
}

// allowed refuses actions that the target's state makes meaningless.
func allowed(a Action, st State, moderatorID string) error {
	conflict := func(msg string) error { return guidepost.Errorf(guidepost.ECONFLICT, "%s %s %s", st.Type, st.ID, msg) }
	switch {
	case a == Restore && !st.Hidden():
		return conflict("is not hidden")
	case a == Unsuspend && !st.Suspended:
		return conflict("is not suspended")
	case a == Suspend && st.ID == moderatorID:
		return &guidepost.Error{Code: guidepost.EUNPROCESSABLE, Message: "a moderator cannot suspend themselves",
			Fields: []guidepost.FieldError{{Field: "target_id", Code: guidepost.FSELF, Message: "names you"}}}
	}
	return nil
}

// remove deletes the target through its owner's own path, so that
// everything the owner's delete does (photos leaving guides, objects
// purged, tiles bumped) happens the same way.
func (s *Service) remove(ctx context.Context, st State) error {
	if st.Type == TargetGuide {
		return s.deps.Guides.Delete(ctx, st.ID, st.AuthorID)
	}
	return s.deps.Photos.Delete(ctx, st.ID, st.AuthorID)
}

// after does what follows a committed action: the public objects of the
// photos it hid or showed move, and the author hears of it. Neither undoes
// the action when it fails: a hidden photo's URLs are already refused, and
// the author reads the outcome on their own lists.
func (s *Service) after(ctx context.Context, done Applied) {
	for _, id := range done.Hidden {
		if err := s.deps.Photos.Withhold(ctx, id); err != nil {
			s.deps.Log.ErrorContext(ctx, "moderation: public objects of a hidden photo not moved; hide it again to retry", "media_id", id, "err", err)
		}
	}
	for _, id := range done.Shown {
		if err := s.deps.Photos.Release(ctx, id); err != nil {
			s.deps.Log.ErrorContext(ctx, "moderation: public objects of a restored photo not moved back; restore retries", "media_id", id, "err", err)
		}
	}
	e := done.Entry
	if s.deps.Notifier == nil || e.TargetAuthor == "" {
		return
	}
	if err := s.deps.Notifier.Moderated(ctx, e.TargetAuthor, e.ID); err != nil {
		s.deps.Log.WarnContext(ctx, "moderation: author not told of an action", "entry_id", e.ID, "err", err)
	}
}

// Queue pages through the open queue, oldest report first.
func (s *Service) Queue(ctx context.Context, limit *int, cursor string) ([]QueueItem, string, error) {
	var f guidepost.Fields
	n := guidepost.PageSize(&f, "limit", limit, DefaultPageLimit, MaxPageLimit)
	after, ok := parseQueueCursor(cursor)
	if !ok {
		f.Add("cursor", guidepost.FINVALIDFORMAT, "is not a cursor this server issued")
	}
	if err := f.Err(); err != nil {
		return nil, "", err
	}
	items, err := s.deps.Store.Queue(ctx, after, n+1)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(items) > n {
		items = items[:n]
		last := items[n-1]
		next = queueCursor(QueueCursor{Oldest: last.Oldest, Target: last.State.Target})
	}
	return items, next, nil
}

// A queue cursor is the last item's oldest report time (µs), its target
// type's index and its id.
func queueCursor(c QueueCursor) string {
	b := binary.BigEndian.AppendUint64(nil, uint64(c.Oldest.UnixMicro()))
	b = append(b, byte(slices.Index([]TargetType{TargetGuide, TargetPhoto, TargetUser}, c.Target.Type)))
	u := uuid.MustParse(c.Target.ID)
	return base64.RawURLEncoding.EncodeToString(append(b, u[:]...))
}

func parseQueueCursor(s string) (*QueueCursor, bool) {
	if s == "" {
		return nil, true
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	types := []TargetType{TargetGuide, TargetPhoto, TargetUser}
	if err != nil || len(b) != 8+1+16 || int(b[8]) >= len(types) {
		return nil, false
	}
	return &QueueCursor{Oldest: time.UnixMicro(int64(binary.BigEndian.Uint64(b))).UTC(),
		Target: Target{Type: types[b[8]], ID: uuid.UUID(b[9:]).String()}}, true
}

// Audit pages through the audit log, newest first.
func (s *Service) Audit(ctx context.Context, limit *int, cursor string) ([]Entry, string, error) {
	n, before, err := page(limit, cursor)
	if err != nil {
		return nil, "", err
	}
	es, err := s.deps.Store.Audit(ctx, before, n+1)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(es) > n {
		es, next = es[:n], guidepost.PageCursor(es[n-1].ID)
	}
	return es, next, nil
}
