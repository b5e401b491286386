package api

import "github.com/gin-gonic/gin"

// MediaService is what the media routes consume.
type MediaService interface{}

func (s *Server) mediaRoutes(v1 *gin.RouterGroup) {}
