package api

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
)

// statusOf is the one table from the application's error vocabulary to
// HTTP. Feature packages never choose a status themselves.
var statusOf = map[string]int{
	guidepost.EINVALID:       http.StatusBadRequest,
	guidepost.EUNAUTHORIZED:  http.StatusUnauthorized,
	guidepost.ETOKENEXPIRED:  http.StatusUnauthorized,
	guidepost.ECREDENTIALS:   http.StatusUnauthorized,
	guidepost.EFORBIDDEN:     http.StatusForbidden,
	guidepost.ENOTFOUND:      http.StatusNotFound,
	guidepost.ECONFLICT:      http.StatusConflict,
	guidepost.ETOOLARGE:      http.StatusRequestEntityTooLarge,
	guidepost.EUNSUPPORTED:   http.StatusUnsupportedMediaType,
	guidepost.EUNPROCESSABLE: http.StatusUnprocessableEntity,
	guidepost.EUNAVAILABLE:   http.StatusServiceUnavailable,
	guidepost.ERATELIMITED:   http.StatusTooManyRequests,
	guidepost.EQUOTA:         http.StatusForbidden,
	guidepost.EINTERNAL:      http.StatusInternalServerError,
	codeMethodNotAllowed:     http.StatusMethodNotAllowed,
	codeBodyTimeout:          http.StatusRequestTimeout,
}

// codeMethodNotAllowed and codeBodyTimeout exist only at the HTTP layer:
// no service can ask for them.
const (
	codeMethodNotAllowed = "method_not_allowed"
	codeBodyTimeout      = "body_timeout"
)

// Problem is an RFC 9457 problem detail.
type Problem struct {
	Type      string                 `json:"type"`
	Title     string                 `json:"title"`
	Status    int                    `json:"status"`
	Detail    string                 `json:"detail"`
	Instance  string                 `json:"instance,omitempty"`
	RequestID string                 `json:"request_id,omitempty"`
	Errors    []guidepost.FieldError `json:"errors,omitempty"`
	Quota     *quotaJSON             `json:"quota,omitempty"`
}

// quotaJSON names the account quota an EQUOTA refusal ran into.
type quotaJSON struct {
	Name  string `json:"name"`
	Limit int64  `json:"limit"`
	Used  int64  `json:"used"`
}

// fail answers err as problem+json. Internal errors are logged with the
// request id and shown only as a generic message.
func fail(c *gin.Context, err error) {
	code := guidepost.ErrorCode(err)
	if code == guidepost.EINTERNAL && errors.Is(err, context.DeadlineExceeded) {
		// The request's deadline cut a dependency short: the server is
		// busy or a dependency slow, and a retry may well succeed.
		err = guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the request took too long; try again shortly")
		code = guidepost.EUNAVAILABLE
	}
	if errors.Is(err, errClientGone) || errors.Is(c.Request.Context().Err(), context.Canceled) && code == guidepost.EINTERNAL {
		// The client hung up; nobody will read an answer. 499 in the logs
		// keeps these apart from real failures.
		c.AbortWithStatus(499)
		return
	}
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status >= 500 {
		logger(c).ErrorContext(c.Request.Context(), "request failed", "route", c.FullPath(), "code", code, "err", err)
	}
	switch status {
	case http.StatusServiceUnavailable:
		c.Header("Retry-After", "1")
	case http.StatusRequestTimeout:
		c.Header("Connection", "close") // the rest of the body is not coming
	}
	limit := guidepost.ErrorLimit(err)
	limitHeaders(c, limit)
	if status == http.StatusTooManyRequests && c.Writer.Header().Get("Retry-After") == "" {
		c.Header("Retry-After", "1") // every 429 says when; a cap frees up in about a second
	}
	p := Problem{
		Type:      "/problems/" + code,
		Title:     problemTitle(code, status),
		Status:    status,
		Detail:    guidepost.ErrorMessage(err),
		Instance:  c.Request.URL.Path,
		RequestID: requestID(c),
		Errors:    causeFields(code, err, limit),
	}
	if code == guidepost.EQUOTA && limit != nil {
		p.Quota = &quotaJSON{Name: limit.Name, Limit: limit.Quota, Used: limit.Used}
	}
	writeProblem(c, p)
}

// causeFields are the problem's errors: the fields at fault, and for a 429
// or a 409 its cause even when no field is: a rate_limited entry naming the
// limit, a wrong_state entry for a clash with the state. A client then
// tells every refusal apart by (field, code) alone.
func causeFields(code string, err error, limit *guidepost.Limit) []guidepost.FieldError {
	fields := guidepost.ErrorFields(err)
	switch {
	case code == guidepost.ERATELIMITED:
		name := "unnamed"
		if limit != nil {
			name = limit.Name
		}
		f := guidepost.Field("", guidepost.FRATELIMITED, "refused by the "+name+" limit; retry after Retry-After seconds")
		f.Limit = name
		return append(slices.Clip(fields), f)
	case code == guidepost.ECONFLICT && len(fields) == 0:
		return []guidepost.FieldError{guidepost.Field("", guidepost.FSTATE, guidepost.ErrorMessage(err))}
	}
	return fields
}

func writeProblem(c *gin.Context, p Problem) {
	c.Header("Content-Type", "application/problem+json")
	c.Header("Cache-Control", "no-store")
	// gin keeps a Content-Type that is already set, so problem+json wins.
	c.AbortWithStatusJSON(p.Status, p)
}

var errClientGone = errors.New("client closed the request")
