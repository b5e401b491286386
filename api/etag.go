package api

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
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

// mapRead is a validated map read (guides.NearbyRead, BBoxRead,
// ClustersRead, TileRead).
type mapRead[A any] interface {
	// VersionKey appends what the answer's version is a hash of, as the
	// guides stand now (guides.VersionOf names it); false when none can be
	// named. It reads only memory.
	VersionKey(b []byte) ([]byte, bool)
	Answer(ctx context.Context) (A, error)
}

// versionMemo names versions and keeps answers by version key
// (answerMemo, clusterMemo).
type versionMemo interface {
	// get names key's version and returns the answer kept for it, if any.
	get(key []byte) (version string, kept *keptAnswer)
	put(key []byte, version string, body []byte)
}

// keptAnswer is an answer kept by its version key, with its version and
// header values made once: a hot URL's answer costs no hash and no
// allocation for its headers.
type keptAnswer struct {
	key     []byte
	version string
	etag    []string // header values shared by every request it answers
	length  []string
	body    []byte // nil: only the version is kept
}

func newKeptAnswer(key []byte, version string, body []byte) *keptAnswer {
	return &keptAnswer{key: key, version: version, etag: []string{etag(version)}, length: contentLength(body), body: body}
}

func contentLength(body []byte) []string { return []string{strconv.Itoa(len(body))} }

// Header values map reads set often, made once. A slice in an http.Header
// may be appended to by a later Add: each has len == cap, so an append
// copies instead of writing into the shared array.
var (
	publicNoCache  = []string{"public, no-cache"}
	privateNoCache = []string{"private, no-cache"}
	answerTypes    = []string{answerType}
	mvtTypes       = []string{mvtType}
)

// mapRoute is what a map route adds to the protocol.
type mapRoute[A any] struct {
	// memo names versions and keeps answers by version; it copies what it
	// keeps when encode's bytes are pooled (newAnswerMemo's does).
	memo      versionMemo
	vary      bool     // the answer depends on the caller (listHeaders)
	mediaType []string // the Content-Type header's value
	// encode returns the answer's bytes (none: 204 No Content), and the
	// pooled buffer holding them, if any, to release once they are sent.
	encode func(A) (body []byte, pooled *[]byte, err error)
}

// serveMap answers a map read: 304 when the request holds its version,
// else the bytes kept for that version, else the answer built now, which
// carries the ETag (and is kept) only if the version held while it was
// built.
func serveMap[A any, R mapRead[A]](c *gin.Context, r R, route mapRoute[A]) {
	buf := keyBufs.Get().(*[guides.VersionKeyRoom]byte)
	defer keyBufs.Put(buf)
	key, named := r.VersionKey(buf[:0])
	v, kept := "", (*keptAnswer)(nil)
	if named {
		v, kept = route.memo.get(key)
	}
	if route.fromMemory(c, v, kept) {
		return
	}
	answer, err := r.Answer(c.Request.Context())
	if err != nil {
		fail(c, err)
		return
	}
	now, still := r.VersionKey(nil)
	held := named && still && bytes.Equal(key, now) // no write landed while it was built
	h := c.Writer.Header()
	if held {
		h["Etag"] = []string{etag(v)}
	}
	h["Cache-Control"] = mapCacheControl(c)
	body, pooled, err := route.encode(answer)
	if err != nil {
		fail(c, err)
		return
	}
	if pooled != nil {
		defer releaseAnswer(pooled)
	}
	if held {
		route.memo.put(key, v, body)
	}
	route.send(c, body, contentLength(body))
}

// keyBufs hold the version keys of map reads: a key passed through the
// read's interface escapes, and a buffer per request was an allocation.
var keyBufs = sync.Pool{New: func() any { return new([guides.VersionKeyRoom]byte) }}

// fromMemory answers 304 when the request holds version v, else sends
// the answer kept for v, if any; false when it did neither.
func (route mapRoute[A]) fromMemory(c *gin.Context, v string, kept *keptAnswer) bool {
	if v == "" {
		return false
	}
	h := c.Writer.Header()
	if inm := c.Request.Header["If-None-Match"]; len(inm) > 0 && matchesVersion(inm[0], v) {
		if kept != nil {
			h["Etag"] = kept.etag
		} else {
			h["Etag"] = []string{etag(v)}
		}
		h["Cache-Control"] = mapCacheControl(c)
		c.Status(http.StatusNotModified)
		return true
	}
	if kept == nil {
		return false
	}
	h["Etag"] = kept.etag
	h["Cache-Control"] = mapCacheControl(c)
	route.send(c, kept.body, kept.length)
	return true
}

// send writes what c.Data writes (Content-Type unless set, Content-Length,
// the body), with header values made once.
func (route mapRoute[A]) send(c *gin.Context, body []byte, length []string) {
	if route.vary {
		listHeaders(c)
	}
	if len(body) == 0 {
		c.Status(http.StatusNoContent)
		return
	}
	h := c.Writer.Header()
	if len(h["Content-Type"]) == 0 {
		h["Content-Type"] = route.mediaType
	}
	h["Content-Length"] = length
	c.Status(http.StatusOK)
	c.Writer.Write(body)
}

// matchesIfNoneMatch is the weak comparison RFC 9110 asks of
// If-None-Match, against a list of entity tags or "*".
func matchesIfNoneMatch(header, tag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}

// matchesVersion is matchesIfNoneMatch against etag(version), without
// making the tag.
func matchesVersion(header, version string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || len(t) == len(version)+2 && t[0] == '"' && t[len(t)-1] == '"' && t[1:len(t)-1] == version {
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
func mapCacheControl(c *gin.Context) []string {
	if auth.UserID(c.Request.Context()) != "" {
		return privateNoCache
	}
	return publicNoCache
}
