package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
)

// meRoutes are the caller's own things. GET and DELETE /v1/me are with the
// account routes (auth.go).
func (s *Server) meRoutes(v1 *gin.RouterGroup) {
	v1.PATCH("/me", s.requireUser, s.limit(s.cfg.Rates.Rename, byAccount), s.patchMe)
	v1.GET("/me/guides", s.requireUser, s.guidesEnabled, s.myGuides)
	v1.GET("/me/media", s.requireUser, s.mediaEnabled, s.myMedia)
}

// patchMe changes the display name; a body without it changes nothing.
func (s *Server) patchMe(c *gin.Context) {
	var in struct {
		DisplayName *string `json:"display_name"`
	}
	if err := decodeJSON(c, &in); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	var u auth.User
	var err error
	if in.DisplayName != nil {
		u, err = s.deps.Auth.Rename(ctx, auth.UserID(ctx), *in.DisplayName)
	} else {
		u, err = s.deps.Auth.Me(ctx, auth.UserID(ctx))
	}
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toUserJSON(u))
}

func (s *Server) myGuides(c *gin.Context) {
	limit, cursor, ok := pageQuery(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	p := guides.MineParams{UserID: auth.UserID(ctx), Limit: limit, Cursor: cursor}
	page, err := s.deps.Guides.Mine(ctx, p)
	if err != nil {
		fail(c, err)
		return
	}
	answer := itemsAnswer(page.Items, false, cursorField(page.NextCursor))
	defer releaseAnswer(answer)
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, answerType, *answer)
}

type mediaPageJSON struct {
	Items      []mediaJSON `json:"items"`
	NextCursor *string     `json:"next_cursor"`
}

// pageQuery reads the query of a "mine" list (limit, cursor); ok false
// when it has answered 400.
func pageQuery(c *gin.Context) (limit *int, cursor string, ok bool) {
	q := newQueryParams(c, "limit", "cursor")
	limit, cursor = q.int("limit"), q.str("cursor")
	if err := q.fields.Err(); err != nil {
		fail(c, err)
		return nil, "", false
	}
	return limit, cursor, true
}

func (s *Server) myMedia(c *gin.Context) {
	limit, cursor, ok := pageQuery(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	page, err := s.deps.Media.Mine(ctx, auth.UserID(ctx), limit, cursor)
	if err != nil {
		fail(c, err)
		return
	}
	out := mediaPageJSON{Items: toMediaJSONs(page.Items), NextCursor: nullable(page.NextCursor)}
	// Owner-only fields and presigned URLs: never cache.
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, out)
}

// mediaEnabled answers 503 when main wired no media service.
func (s *Server) mediaEnabled(c *gin.Context) {
	if s.deps.Media == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "photos are not enabled on this server"))
		return
	}
	c.Next()
}
