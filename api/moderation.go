package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/moderation"
)

// ModerationService is what the report and moderation routes consume
// (moderation.Service).
type ModerationService interface {
	Report(ctx context.Context, reporterID string, in moderation.ReportInput) (moderation.Report, error)
	ReportsBy(ctx context.Context, reporterID string, limit *int, cursor string) ([]moderation.Report, string, error)
	Role(ctx context.Context, userID string) (moderation.Role, error)
	Queue(ctx context.Context, limit *int, cursor string) ([]moderation.QueueItem, string, error)
	Act(ctx context.Context, moderatorID string, in moderation.ActionInput) (moderation.Entry, error)
	Audit(ctx context.Context, limit *int, cursor string) ([]moderation.Entry, string, error)
	Entry(ctx context.Context, id string) (moderation.Entry, error)
}

func (s *Server) moderationRoutes(v1 *gin.RouterGroup) {
	v1.POST("/reports", s.requireUser, s.moderationEnabled, s.limit(s.cfg.Rates.Report, byAccount), s.fileReport)
	v1.GET("/me/reports", s.requireUser, s.moderationEnabled, s.myReports)
	m := v1.Group("/moderation", s.requireUser, s.moderationEnabled, s.requireModerator)
	m.GET("/reports", s.moderationQueue)
	m.POST("/actions", s.moderationAction)
	m.GET("/audit", s.moderationAudit)
}

func (s *Server) moderationEnabled(c *gin.Context) {
	if s.deps.Moderation == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "moderation is not enabled on this server"))
		return
	}
	c.Next()
}

// requireModerator is the one guard of the /v1/moderation routes: the role
// is read from the database on every request, so a revoke or a suspension
// takes effect at once, whatever tokens the caller holds.
func (s *Server) requireModerator(c *gin.Context) {
	ctx := c.Request.Context()
	role, err := s.deps.Moderation.Role(ctx, auth.UserID(ctx))
	switch {
	case err != nil && guidepost.ErrorCode(err) != guidepost.ENOTFOUND:
		fail(c, err)
		return
	case err != nil || !role.Moderator:
		fail(c, guidepost.Errorf(guidepost.EFORBIDDEN, "only moderators may use the moderation routes"))
		return
	case role.Suspended:
		fail(c, guidepost.Errorf(guidepost.EFORBIDDEN, "a suspended account may not moderate"))
		return
	}
	c.Header("Cache-Control", "no-store")
	c.Next()
}

type reportJSON struct {
	ID         string     `json:"id"`
	TargetType string     `json:"target_type"`
	TargetID   string     `json:"target_id"`
	Reason     string     `json:"reason"`
	Note       string     `json:"note"`
	Status     string     `json:"status"`
	Outcome    *string    `json:"outcome"`
	CreatedAt  timestamp  `json:"created_at"`
	ClosedAt   *timestamp `json:"closed_at"`
}

func toReportJSON(r moderation.Report) reportJSON {
	j := reportJSON{ID: r.ID, TargetType: string(r.Target.Type), TargetID: r.Target.ID, Reason: string(r.Reason),
		Note: r.Note, Status: r.Status, CreatedAt: timestamp(r.CreatedAt), ClosedAt: stampOrNil(r.ClosedAt)}
	if r.Outcome != "" {
		o := string(r.Outcome)
		j.Outcome = &o
	}
	return j
}

func (s *Server) fileReport(c *gin.Context) {
	var in struct {
		TargetType string `json:"target_type"`
		TargetID   string `json:"target_id"`
		Reason     string `json:"reason"`
		Note       string `json:"note"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	r, err := s.deps.Moderation.Report(ctx, auth.UserID(ctx), moderation.ReportInput(in))
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusAccepted, toReportJSON(r))
}

type pageJSON[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

func pageOf[V, T any](vs []V, next string, to func(V) T) pageJSON[T] {
	p := pageJSON[T]{Items: make([]T, len(vs))}
	for i, v := range vs {
		p.Items[i] = to(v)
	}
	if next != "" {
		p.NextCursor = &next
	}
	return p
}

// pageParams reads limit and cursor, answering the problem when they are
// bad.
func pageParams(c *gin.Context) (limit *int, cursor string, ok bool) {
	q := newQueryParams(c, "limit", "cursor")
	limit, cursor = q.int("limit"), q.str("cursor")
	if err := q.fields.Err(); err != nil {
		fail(c, err)
		return nil, "", false
	}
	return limit, cursor, true
}

func (s *Server) myReports(c *gin.Context) {
	limit, cursor, ok := pageParams(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	rs, next, err := s.deps.Moderation.ReportsBy(ctx, auth.UserID(ctx), limit, cursor)
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, pageOf(rs, next, toReportJSON))
}

type holdJSON struct {
	Reason   string    `json:"reason"`
	HiddenAt timestamp `json:"hidden_at"`
}

type targetStateJSON struct {
	AuthorID  *string   `json:"author_id"`
	Label     string    `json:"label"`
	Hidden    *holdJSON `json:"hidden"`
	Suspended bool      `json:"suspended"`
	Deleted   bool      `json:"deleted"`
}

type queueItemJSON struct {
	TargetType string          `json:"target_type"`
	TargetID   string          `json:"target_id"`
	Target     targetStateJSON `json:"target"`
	Reporters  int             `json:"reporters"`
	Reasons    []string        `json:"reasons"`
	OldestAt   timestamp       `json:"oldest_report_at"`
	NewestAt   timestamp       `json:"newest_report_at"`
}

func toQueueItemJSON(it moderation.QueueItem) queueItemJSON {
	st := it.State
	j := queueItemJSON{TargetType: string(st.Type), TargetID: st.ID, Reporters: it.Reporters, Reasons: []string{},
		OldestAt: timestamp(it.Oldest), NewestAt: timestamp(it.Newest),
		Target: targetStateJSON{Label: st.Label, Suspended: st.Suspended, Deleted: st.Deleted}}
	if st.AuthorID != "" {
		j.Target.AuthorID = &st.AuthorID
	}
	if st.Hidden() {
		j.Target.Hidden = &holdJSON{Reason: st.HiddenReason, HiddenAt: timestamp(st.HiddenAt)}
	}
	for _, r := range it.Reasons {
		j.Reasons = append(j.Reasons, string(r))
	}
	return j
}

func (s *Server) moderationQueue(c *gin.Context) {
	limit, cursor, ok := pageParams(c)
	if !ok {
		return
	}
	items, next, err := s.deps.Moderation.Queue(c.Request.Context(), limit, cursor)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, pageOf(items, next, toQueueItemJSON))
}

type entryJSON struct {
	ID            string    `json:"id"`
	ModeratorID   *string   `json:"moderator_id"`
	Action        string    `json:"action"`
	TargetType    string    `json:"target_type"`
	TargetID      string    `json:"target_id"`
	TargetAuthor  *string   `json:"target_author_id"`
	Reason        string    `json:"reason"`
	ReportsClosed int       `json:"reports"`
	CreatedAt     timestamp `json:"created_at"`
}

func toEntryJSON(e moderation.Entry) entryJSON {
	j := entryJSON{ID: e.ID, Action: string(e.Action), TargetType: string(e.Target.Type), TargetID: e.Target.ID,
		Reason: e.Reason, ReportsClosed: e.Reports, CreatedAt: timestamp(e.CreatedAt)}
	if e.ModeratorID != "" {
		j.ModeratorID = &e.ModeratorID
	}
	if e.TargetAuthor != "" {
		j.TargetAuthor = &e.TargetAuthor
	}
	return j
}

func (s *Server) moderationAction(c *gin.Context) {
	var in struct {
		Action     string `json:"action"`
		TargetType string `json:"target_type"`
		TargetID   string `json:"target_id"`
		Reason     string `json:"reason"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	e, err := s.deps.Moderation.Act(ctx, auth.UserID(ctx), moderation.ActionInput(in))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toEntryJSON(e))
}

func (s *Server) moderationAudit(c *gin.Context) {
	limit, cursor, ok := pageParams(c)
	if !ok {
		return
	}
	es, next, err := s.deps.Moderation.Audit(c.Request.Context(), limit, cursor)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, pageOf(es, next, toEntryJSON))
}

// about is what a client shows as the service's published contact
// (MODERATION_CONTACT) and what it offers to report with.
func (s *Server) about(c *gin.Context) {
	reasons := make([]string, len(moderation.Reasons))
	for i, r := range moderation.Reasons {
		reasons[i] = string(r)
	}
	var contact *string
	if s.cfg.Contact != "" {
		contact = &s.cfg.Contact
	}
	c.Header("Cache-Control", "public, max-age=300")
	c.JSON(http.StatusOK, gin.H{"name": "guidepost", "contact": contact, "report_reasons": reasons})
}
