package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost/auth"
)

// Map reads (tiles, nearby, viewport, clusters) carry a strong ETag: the
// version the guide service names for the answer, computed from memory
// (tile versions and like counts the cache follows). A request whose
// If-None-Match holds it is answered 304 before any store is asked. The
// version is named again after the answer is built, and the ETag sent only
// if it did not change meanwhile, so an ETag never names an answer built
// across a write. Answers must be revalidated (no-cache): a new guide is
// visible within a second, which no max-age could promise.

// etag quotes a version as an entity tag; "" for none.
func etag(version string) string {
	if version == "" {
		return ""
	}
	return `"` + version + `"`
}

// conditional names the version of a map read and answers 304 when the
// request already holds that answer; done says the handler is finished
// (304, or a 400 from validating the request).
func conditional(c *gin.Context, version func() (string, error)) (v string, done bool) {
	v, err := version()
	if err != nil {
		fail(c, err)
		return "", true
	}
	tag := etag(v)
	if tag != "" && matchesIfNoneMatch(c.GetHeader("If-None-Match"), tag) {
		c.Header("ETag", tag)
		c.Header("Cache-Control", mapCacheControl(c))
		c.Status(http.StatusNotModified)
		return v, true
	}
	return v, false
}

// validators sets the ETag of an answer built since v was named, unless
// the version changed meanwhile; held says it did not (the answer is v's).
func validators(c *gin.Context, v string, version func() (string, error)) (held bool) {
	if now, err := version(); err == nil && v != "" && now == v {
		c.Header("ETag", etag(v))
		held = true
	}
	c.Header("Cache-Control", mapCacheControl(c))
	return held
}

// matchesIfNoneMatch is the weak comparison RFC 9110 asks of
// If-None-Match, against a list of entity tags or "*".
func matchesIfNoneMatch(header, tag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}

// mapCacheControl lets any cache keep an anonymous map answer but use it
// only after asking (a 304 costs the server a hash and the client no
// body); a signed-in caller's (their own likes and counts) only their own
// cache: Vary: Authorization alone would trust every shared cache to key
// on the header.
func mapCacheControl(c *gin.Context) string {
	if auth.UserID(c.Request.Context()) != "" {
		return "private, no-cache"
	}
	return "public, no-cache"
}
