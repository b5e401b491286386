package api

import "github.com/gin-gonic/gin"

// GuideService is what the guide routes consume.
type GuideService interface{}

func (s *Server) guideRoutes(v1 *gin.RouterGroup) {}
