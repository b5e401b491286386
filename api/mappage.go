package api

import (
	"bytes"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/web"
)

// mapRoutes serves the demo map page and its files from the binary (web/).
// They are pages, not API operations, but the OpenAPI document lists them
// like /openapi.yaml so the document still names every route.
func (s *Server) mapRoutes() {
	e := s.engine
	e.GET("/map", func(c *gin.Context) { serveMapAsset(c, "index.html") })
	e.GET("/map/:file", func(c *gin.Context) { serveMapAsset(c, c.Param("file")) })
	e.GET("/map/vendor/:file", func(c *gin.Context) { serveMapAsset(c, "vendor/"+c.Param("file")) })
}

// serveMapAsset answers with the file, or 304 when the browser's copy (its
// If-None-Match) is current: every load revalidates, so a new binary's page
// is never mixed with an old one's scripts.
func serveMapAsset(c *gin.Context, name string) {
	a, ok := web.MapAsset(name)
	if !ok {
		fail(c, guidepost.Errorf(guidepost.ENOTFOUND, "no file %s on the map page", name))
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Type", a.Type)
	h.Set("ETag", a.ETag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(c.Writer, c.Request, a.Name, time.Time{}, bytes.NewReader(a.Body))
}
