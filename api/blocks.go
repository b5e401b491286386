package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/blocks"
)

// BlockService is what the block routes consume (blocks.Service).
type BlockService interface {
	Block(ctx context.Context, blockerID, userID string) (blocks.Block, error)
	Unblock(ctx context.Context, blockerID, userID string) error
	List(ctx context.Context, blockerID string, limit *int, cursor string) (blocks.Page, error)
}

func (s *Server) blockRoutes(v1 *gin.RouterGroup) {
	g := v1.Group("/me/blocks", s.requireUser, s.blocksEnabled)
	write := s.limit(s.cfg.Rates.Block, byAccount)
	g.GET("", s.listBlocks)
	g.PUT("/:user_id", write, s.block)
	g.DELETE("/:user_id", write, s.unblock)
}

// blocksEnabled answers 503 when main wired no block service.
func (s *Server) blocksEnabled(c *gin.Context) {
	if s.deps.Blocks == nil {
		fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "blocks are not enabled on this server"))
		return
	}
	c.Next()
}

type blockJSON struct {
	User      guideAuthorJSON `json:"user"`
	CreatedAt timestamp       `json:"created_at"`
}

func toBlockJSON(b blocks.Block) blockJSON {
	return blockJSON{User: guideAuthorJSON{ID: b.User.ID, DisplayName: b.User.DisplayName}, CreatedAt: timestamp(b.CreatedAt)}
}

// block answers 200 with the block, the same one however often it is put.
func (s *Server) block(c *gin.Context) {
	ctx := c.Request.Context()
	b, err := s.deps.Blocks.Block(ctx, auth.UserID(ctx), c.Param("user_id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, toBlockJSON(b))
}

func (s *Server) unblock(c *gin.Context) {
	ctx := c.Request.Context()
	if err := s.deps.Blocks.Unblock(ctx, auth.UserID(ctx), c.Param("user_id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

type blockPageJSON struct {
	Items      []blockJSON `json:"items"`
	NextCursor *string     `json:"next_cursor"`
}

func (s *Server) listBlocks(c *gin.Context) {
	limit, cursor, ok := pageQuery(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	page, err := s.deps.Blocks.List(ctx, auth.UserID(ctx), limit, cursor)
	if err != nil {
		fail(c, err)
		return
	}
	out := blockPageJSON{Items: make([]blockJSON, len(page.Items)), NextCursor: nullable(page.NextCursor)}
	for i, b := range page.Items {
		out.Items[i] = toBlockJSON(b)
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, out)
}
