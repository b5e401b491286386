package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/media"
)

// UploadService is what the direct-upload routes consume; *media.Service
// implements it. The client sends the bytes straight to S3; these routes
// carry only the declaration, the status and the completion.
type UploadService interface {
	StartUpload(ctx context.Context, in media.NewUpload) (media.StartResult, error)
	OpenUploads(ctx context.Context, ownerID string) ([]media.UploadTicket, error)
	UploadStatus(ctx context.Context, id, ownerID string) (media.UploadTicket, error)
	CompleteUpload(ctx context.Context, id, ownerID string) (media.UploadResult, error)
	AbortUpload(ctx context.Context, id, ownerID string) error
}

func (s *Server) uploadRoutes(v1 *gin.RouterGroup) {
	g := v1.Group("/uploads")
	if s.deps.Direct == nil {
		off := func(c *gin.Context) {
			fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "direct uploads are not enabled on this server"))
		}
		g.POST("", off)
		g.GET("", off)
		g.GET("/:id", off)
		g.POST("/:id/complete", off)
		g.DELETE("/:id", off)
		return
	}
	refusals := s.metered(guidepost.Rate{}, s.cfg.Rates.UploadRefusals, dedupeAnswer)
	g.POST("", s.requireUser, refusals, s.startUpload)
	g.GET("", s.requireUser, s.openUploads)
	g.GET("/:id", s.requireUser, s.uploadStatus)
	g.POST("/:id/complete", s.requireUser, refusals, s.completeUpload)
	g.DELETE("/:id", s.requireUser, s.abortUpload)
}

type newUploadJSON struct {
	Bytes       int64    `json:"bytes"`
	SHA256      string   `json:"sha256"`
	ContentType string   `json:"content_type"`
	PartSize    int64    `json:"part_size"`
	PartSHA256  []string `json:"part_sha256"`
}

type partJSON struct {
	Number  int32             `json:"number"`
	Bytes   int64             `json:"bytes"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"` // signed into URL: the PUT sends them
	ETag    string            `json:"etag,omitempty"`
}

type uploadJSON struct {
	Object       string     `json:"object"` // "upload", beside a photo's "media"
	ID           string     `json:"id"`
	State        string     `json:"state"`
	Bytes        int64      `json:"bytes"`
	SHA256       string     `json:"sha256"`
	ContentType  string     `json:"content_type"`
	PartSize     int64      `json:"part_size"`
	Parts        []partJSON `json:"parts"`    // still to send, with URLs
	Received     []partJSON `json:"received"` // held by the store
	URLsExpireAt *timestamp `json:"urls_expire_at"`
	ExpiresAt    timestamp  `json:"expires_at"`
	CreatedAt    timestamp  `json:"created_at"`
	Media        *mediaJSON `json:"media"`
}

func toUploadJSON(t media.UploadTicket) uploadJSON {
	j := uploadJSON{
		Object: "upload", ID: t.ID, State: string(t.State), Bytes: t.Bytes, SHA256: t.SHA256, ContentType: t.Type,
		PartSize: t.PartSize, Parts: []partJSON{}, Received: []partJSON{}, ExpiresAt: timestamp(t.Expires), CreatedAt: timestamp(t.Created),
	}
	for _, p := range t.Send {
		j.Parts = append(j.Parts, partJSON{Number: p.Number, Bytes: p.Bytes, URL: p.URL, Headers: p.Header})
	}
	for _, p := range t.Held {
		j.Received = append(j.Received, partJSON{Number: p.Number, Bytes: p.Bytes, URL: p.URL, Headers: p.Header, ETag: p.ETag})
	}
	if len(t.Send)+len(t.Held) > 0 {
		j.URLsExpireAt = stampOrNil(t.URLsUntil)
	}
	if t.Photo != nil {
		m := toMediaJSON(*t.Photo)
		j.Media = &m
	}
	return j
}

func (s *Server) startUpload(c *gin.Context) {
	var body newUploadJSON
	if err := decodeJSON(c, &body); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	res, err := s.deps.Direct.StartUpload(ctx, media.NewUpload{
		OwnerID: auth.UserID(ctx), Bytes: body.Bytes, SHA256: body.SHA256, ContentType: body.ContentType,
		PartSize: body.PartSize, PartSHA256: body.PartSHA256, IdempotencyKey: c.GetHeader("Idempotency-Key"),
	})
	if err != nil {
		fail(c, err)
		return
	}
	if res.Replayed {
		c.Header("Idempotent-Replayed", "true")
	}
	c.Header("Cache-Control", "no-store")
	if res.Outcome == media.Duplicate {
		c.Header("Location", "/v1/media/"+res.Existing.ID)
		c.JSON(http.StatusOK, toMediaJSON(res.Existing.View))
		return
	}
	c.Header("Location", "/v1/uploads/"+res.Ticket.ID)
	status := http.StatusCreated
	if res.Outcome == media.UploadResumed {
		status = http.StatusOK // the open upload of these bytes: send what it lacks
	}
	c.JSON(status, toUploadJSON(res.Ticket))
}

// openUploads is GET /v1/uploads: the caller's uploads still open.
func (s *Server) openUploads(c *gin.Context) {
	if err := newQueryParams(c).fields.Err(); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	open, err := s.deps.Direct.OpenUploads(ctx, auth.UserID(ctx))
	if err != nil {
		fail(c, err)
		return
	}
	items := make([]uploadJSON, len(open))
	for i, t := range open {
		items[i] = toUploadJSON(t)
	}
	c.Header("Cache-Control", "no-store") // the URLs are fresh each time
	c.JSON(http.StatusOK, gin.H{"items": items})
}

func (s *Server) uploadStatus(c *gin.Context) {
	ctx := c.Request.Context()
	t, err := s.deps.Direct.UploadStatus(ctx, c.Param("id"), auth.UserID(ctx))
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store") // the URLs are fresh each time
	c.JSON(http.StatusOK, toUploadJSON(t))
}

func (s *Server) completeUpload(c *gin.Context) {
	ctx := c.Request.Context()
	res, err := s.deps.Direct.CompleteUpload(ctx, c.Param("id"), auth.UserID(ctx))
	if err != nil {
		fail(c, err)
		return
	}
	acceptedPhoto(c, res)
}

func (s *Server) abortUpload(c *gin.Context) {
	ctx := c.Request.Context()
	if err := s.deps.Direct.AbortUpload(ctx, c.Param("id"), auth.UserID(ctx)); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
