package api

import (
	_ "embed"

	"github.com/gin-gonic/gin"
)

// OpenAPI is the API contract, served as written; a test keeps it and the
// router in step.
//
//go:embed openapi.yaml
var OpenAPI []byte

func serveOpenAPI(c *gin.Context) {
	c.Data(200, "application/yaml", OpenAPI)
}
