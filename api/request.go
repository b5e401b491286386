package api

import (
	"context"
	"log/slog"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
)

// request is what the API keeps for one request, made once by front and
// carried as the request's context itself: its id, the logger fail
// reaches, its shedder slot, its deadline (lazyDeadline, set by the /v1
// step), its X-Request-Id value and its compressing writer. One allocation and one copy of
// the *http.Request, where a context.WithValue for the id, gin's key map
// for the logger and the slot, and a second context for the deadline each
// cost a hot answer its own.
type request struct {
	lazyDeadline
	id       string
	idHeader [1]string // the X-Request-Id header's value, kept here so it allocates none
	log      *slog.Logger
	slot     slotHold
	compress compressWriter
}

type requestKey struct{}

func newRequest(parent context.Context, id string, log *slog.Logger) *request {
	return &request{lazyDeadline: lazyDeadline{parent: parent}, id: id, idHeader: [1]string{id}, log: log}
}

// RequestID makes the request a guidepost.RequestIDContext: a line logged
// with it reads the id without Value boxing it.
func (r *request) RequestID() string { return r.id }

// Value answers the request's own keys, then the deadline's.
func (r *request) Value(key any) any {
	switch {
	case key == requestKey{}:
		return r
	case guidepost.IsRequestIDKey(key):
		return r.id
	}
	return r.lazyDeadline.Value(key)
}

var discardLog = guidepost.Logger(nil)

// requestOf is the request's state: the request context itself on the
// hot path, else found under the contexts a step added (the caller's);
// outside front (a handler tested alone), a fresh one that logs nowhere.
func requestOf(c *gin.Context) *request {
	ctx := c.Request.Context()
	if r, ok := ctx.(*request); ok {
		return r
	}
	if r, ok := ctx.Value(requestKey{}).(*request); ok {
		return r
	}
	return newRequest(ctx, "", discardLog)
}

// logger is the API's logger, for fail, which every handler calls without
// a *Server.
func logger(c *gin.Context) *slog.Logger { return requestOf(c).log }

func requestID(c *gin.Context) string { return guidepost.RequestID(c.Request.Context()) }

// leave ends what the /v1 step started: the deadline's context is
// cancelled, then the slot (if still held) is given back.
func (r *request) leave() {
	r.stop()
	r.slot.release()
}
