package moderation

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// Limits shared with api/openapi.yaml.
const (
	MaxNote   = 1000 // characters of a report's note
	MaxReason = 500  // characters of an action's reason
	// GuestAge is how old a guest account must be for its report to count
	// towards an automatic hold: guests cost nothing to create, so a flood
	// of fresh ones must not take anything down.
	GuestAge         = 24 * time.Hour
	DefaultPageLimit = 50
	MaxPageLimit     = 100
)

// Config tunes the automatic hold.
type Config struct {
	// AutoHideReports distinct reporters (MODERATION_AUTO_HIDE_REPORTS)
	// hide a target until a moderator looks; 0 never does.
	AutoHideReports int
}

// DefaultConfig has every default: five distinct established reporters
// hold a target.
func DefaultConfig() Config { return Config{AutoHideReports: 5} }

// Deps is what the service consumes.
type Deps struct {
	Store    Store
	Guides   Deleter
	Photos   Photos
	Notifier Notifier // nil tells no one
	Clock    guidepost.Clock
	Log      *slog.Logger
	// Registerer gets the reports and actions counters; nil registers
	// nothing.
	Registerer prometheus.Registerer
}

// Service implements reports, the queue, actions and the audit log.
type Service struct {
	deps    Deps
	cfg     Config
	reports *prometheus.CounterVec
	actions *prometheus.CounterVec
}

// New builds the service.
func New(deps Deps, cfg Config) *Service {
	deps.Log = guidepost.Logger(deps.Log)
	if deps.Clock == nil {
		deps.Clock = guidepost.SystemClock{}
	}
	s := &Service{deps: deps, cfg: cfg,
		reports: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_reports_total", Help: "Reports filed, by target type and whether new or a repeat of an open one.",
		}, []string{"target_type", "outcome"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_moderation_actions_total", Help: "Moderation actions recorded, by action and by whom (moderator or reports).",
		}, []string{"action", "by"}),
	}
	if deps.Registerer != nil {
		deps.Registerer.MustRegister(s.reports, s.actions)
	}
	return s
}

func (s *Service) now() time.Time { return s.deps.Clock.Now().UTC().Truncate(time.Microsecond) }

// ReportInput is what a reporter sends.
type ReportInput struct {
	TargetType string
	TargetID   string
	Reason     string
	Note       string
}

// Report files a report by reporterID, or returns their open one on the
// same target. A target that does not exist (or no longer) is ENOTFOUND
// naming target_id; reporting yourself, or your own content, is refused.
func (s *Service) Report(ctx context.Context, reporterID string, in ReportInput) (Report, error) {
	t, err := checkReport(in)
	if err != nil {
		return Report{}, err
	}
	st, err := s.target(ctx, t)
	if err != nil {
		return Report{}, err
	}
	if st.AuthorID == reporterID {
		return Report{}, &guidepost.Error{Code: guidepost.EUNPROCESSABLE, Message: "you cannot report yourself or your own content",
			Fields: []guidepost.FieldError{{Field: "target_id", Code: guidepost.FSELF, Message: "names you or your own " + string(t.Type)}}}
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Report{}, err
	}
	now := s.now()
	r := Report{ID: id.String(), ReporterID: reporterID, Target: t, Reason: Reason(in.Reason), Note: in.Note,
		Status: StatusOpen, CreatedAt: now}
	hold, err := s.entry("", Hide, t, st.AuthorID, fmt.Sprintf("held automatically: reported by %d accounts", s.cfg.AutoHideReports))
	if err != nil {
		return Report{}, err
	}
	rule := HoldRule{Reporters: s.cfg.AutoHideReports, GuestsBefore: now.Add(-GuestAge)}
	if t.Type == TargetUser || rule.Reporters <= 0 {
		rule.Reporters = 0 // a user is suspended by a moderator only
	}
	rep, created, held, err := s.deps.Store.File(ctx, r, rule, hold)
	if err != nil {
		return Report{}, targetError(err, t)
	}
	s.reports.WithLabelValues(string(t.Type), map[bool]string{true: "new", false: "repeat"}[created]).Inc()
	if held != nil {
		s.actions.WithLabelValues(string(Hide), "reports").Inc()
		s.deps.Log.InfoContext(ctx, "moderation: target held by reports", "target_type", t.Type, "target_id", t.ID)
		s.after(ctx, Applied{Entry: *held, Hidden: photoIf(t)})
	}
	return rep, nil
}

// checkReport validates a report's fields, naming each bad one.
func checkReport(in ReportInput) (Target, error) {
	var f guidepost.Fields
	t := checkTarget(&f, in.TargetType, in.TargetID)
	switch {
	case in.Reason == "":
		f.Add("reason", guidepost.FREQUIRED, "is required: one of "+list(Reasons))
	case !slices.Contains(Reasons, Reason(in.Reason)):
		f.Add("reason", guidepost.FINVALIDFORMAT, "must be one of "+list(Reasons))
	}
	checkText(&f, "note", in.Note, MaxNote, true)
	return t, f.Err()
}

func checkTarget(f *guidepost.Fields, typ, id string) Target {
	switch TargetType(typ) {
	case TargetGuide, TargetPhoto, TargetUser:
	case "":
		f.Add("target_type", guidepost.FREQUIRED, "is required: guide, photo or user")
	default:
		f.Add("target_type", guidepost.FINVALIDFORMAT, "must be guide, photo or user")
	}
	u, err := uuid.Parse(id)
	switch {
	case id == "":
		f.Add("target_id", guidepost.FREQUIRED, "is required")
	case err != nil || len(id) != 36:
		f.Add("target_id", guidepost.FINVALIDFORMAT, "is not an id")
	default:
		id = u.String()
	}
	return Target{Type: TargetType(typ), ID: id}
}

func checkText(f *guidepost.Fields, field, s string, max int, lines bool) {
	if msg := guidepost.TextProblem(s, lines); msg != "" {
		f.Add(field, guidepost.FINVALIDCHARS, msg)
	} else if n := utf8.RuneCountInString(s); n > max {
		f.Add(field, guidepost.FTOOLONG, fmt.Sprintf("must be at most %d characters (got %d)", max, n))
	}
}

func list[T ~string](vs []T) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += string(v)
	}
	return s
}

// target reads a target, a missing one answered as a problem naming
// target_id.
func (s *Service) target(ctx context.Context, t Target) (State, error) {
	st, err := s.deps.Store.Target(ctx, t)
	return st, targetError(err, t)
}

// targetError names target_id in a not-found error.
func targetError(err error, t Target) error {
	if guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		return err
	}
	msg := fmt.Sprintf("%s %s not found (or deleted)", t.Type, t.ID)
	return &guidepost.Error{Code: guidepost.ENOTFOUND, Message: msg, Err: err,
		Fields: []guidepost.FieldError{{Field: "target_id", Code: guidepost.FNOTFOUND, Message: "names no " + string(t.Type) + " that exists"}}}
}

func (s *Service) entry(moderatorID string, a Action, t Target, author, reason string) (Entry, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Entry{}, err
	}
	return Entry{ID: id.String(), ModeratorID: moderatorID, Action: a, Target: t, TargetAuthor: author,
		Reason: reason, CreatedAt: s.now()}, nil
}

// photoIf lists t when it is a photo.
func photoIf(t Target) []string {
	if t.Type == TargetPhoto {
		return []string{t.ID}
	}
	return nil
}

// ReportsBy pages through a reporter's reports, newest first.
func (s *Service) ReportsBy(ctx context.Context, reporterID string, limit *int, cursor string) ([]Report, string, error) {
	n, before, err := page(limit, cursor)
	if err != nil {
		return nil, "", err
	}
	rs, err := s.deps.Store.ReportsBy(ctx, reporterID, before, n+1)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(rs) > n {
		rs, next = rs[:n], guidepost.PageCursor(rs[n-1].ID)
	}
	return rs, next, nil
}

// page reads a page size and a "mine" cursor.
func page(limit *int, cursor string) (int, string, error) {
	var f guidepost.Fields
	n := guidepost.PageSize(&f, "limit", limit, DefaultPageLimit, MaxPageLimit)
	if err := f.Err(); err != nil {
		return 0, "", err
	}
	before, err := guidepost.PageAfter("cursor", cursor)
	return n, before, err
}

// Role tells the moderation routes' guard who the caller is.
func (s *Service) Role(ctx context.Context, userID string) (Role, error) {
	return s.deps.Store.Role(ctx, userID)
}

// Entry reads one line of the audit log, for the events of its author.
func (s *Service) Entry(ctx context.Context, id string) (Entry, error) {
	return s.deps.Store.Entry(ctx, id)
}

// GrantModerator gives the account with email the moderator role.
func (s *Service) GrantModerator(ctx context.Context, email string) (string, error) {
	return s.deps.Store.SetModerator(ctx, email, true)
}

// RevokeModerator takes the role away.
func (s *Service) RevokeModerator(ctx context.Context, email string) (string, error) {
	return s.deps.Store.SetModerator(ctx, email, false)
}
