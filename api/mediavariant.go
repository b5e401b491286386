package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost/auth"
)

// getMediaVariant answers GET /v1/media/{id}/{variant}, the short path a
// list names a cover's marker (and every other variant) by: 302 to where
// the bytes are, reusable for as long as that URL stays good. 302, not
// 301, even under a public base: a 301 is kept without bound, and the path
// must stop leading anywhere once the photo is hidden, its author blocked,
// or a re-render names new objects.
func (s *Server) getMediaVariant(c *gin.Context) {
	ctx := c.Request.Context()
	link, err := s.deps.Media.VariantURL(ctx, auth.UserID(ctx), c.Param("id"), c.Param("variant"))
	if err != nil {
		fail(c, err)
		return
	}
	// private: the answer depends on whom the caller blocks. An <img>
	// sends no bearer and is answered as anonymous.
	c.Header("Cache-Control", "private, max-age="+strconv.Itoa(int(link.MaxAge/time.Second)))
	c.Writer.Header().Add("Vary", "Authorization")
	c.Redirect(http.StatusFound, link.URL)
}
