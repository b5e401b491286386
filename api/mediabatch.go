package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/media"
)

type mediaBatchJSON struct {
	Items    []mediaJSON `json:"items"`
	NotFound []string    `json:"not_found"`
}

func toMediaJSONs(views []media.View) []mediaJSON {
	out := make([]mediaJSON, len(views))
	for i, v := range views {
		out[i] = toMediaJSON(v)
	}
	return out
}

// getMediaBatch answers GET /v1/media?ids=a,b,c: several photos at once, as
// GET /v1/media/{id} shows each to the caller.
func (s *Server) getMediaBatch(c *gin.Context) {
	q := newQueryParams(c, "ids")
	var ids []string
	if raw := q.str("ids"); raw != "" {
		ids = strings.Split(raw, ",")
	}
	if err := q.fields.Err(); err != nil {
		fail(c, err)
		return
	}
	ctx := c.Request.Context()
	b, err := s.deps.Media.GetMany(ctx, ids, auth.UserID(ctx))
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, mediaBatchJSON{Items: toMediaJSONs(b.Items), NotFound: b.NotFound})
}
