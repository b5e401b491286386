package api

import (
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// mvtType is the media type of a Mapbox vector tile.
const mvtType = "application/vnd.mapbox-vector-tile"

// tileSuffix ends a tile's URL: gin cannot match a parameter followed by a
// literal within one segment, so the handler checks it.
const tileSuffix = ".mvt"

func (s *Server) tileRoutes(v1 *gin.RouterGroup) {
	v1.GET("/tiles/:z/:x/:y", s.guidesEnabled, s.vectorTile)
}

func (s *Server) vectorTile(c *gin.Context) {
	y, ok := strings.CutSuffix(c.Param("y"), tileSuffix)
	if !ok {
		fail(c, guidepost.Errorf(guidepost.ENOTFOUND, "no route %s %s: tiles end in %s", c.Request.Method, c.Request.URL.Path, tileSuffix))
		return
	}
	q := newQueryParams(c, "tag")
	p := guides.VectorTileParams{Z: pathInt(&q.fields, "z", c.Param("z")), X: pathInt(&q.fields, "x", c.Param("x")),
		Y: pathInt(&q.fields, "y", y), Tag: q.str("tag")}
	if err := q.fields.Err(); err != nil {
		fail(c, err)
		return
	}
	r, err := s.deps.Guides.ReadTile(p)
	if err != nil {
		fail(c, err)
		return
	}
	serveMap(c, r, mapRoute[[]byte]{memo: s.tiles, mediaType: mvtTypes, encode: encodeTile})
}

func encodeTile(tile []byte) ([]byte, *[]byte, error) { return tile, nil, nil }

// pathInt reads a whole number from a path segment, naming it when it is
// not one.
func pathInt(f *guidepost.Fields, name, v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || strings.HasPrefix(v, "+") {
		f.Add(name, guidepost.FINVALIDFORMAT, "must be an integer")
		return 0
	}
	return n
}
