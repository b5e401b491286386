package api

import (
	"cmp"
	"html/template"
	"maps"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
)

// problemDoc says what a problem type means and what a client should do
// about it. Every code in statusOf has one (a test holds them in step), and
// GET /problems/{type}, where a problem's type URI points, shows it.
type problemDoc struct {
	Title string
	About string
}

var problemDocs = map[string]problemDoc{
	guidepost.EINVALID: {"Invalid request",
		"A parameter, header or body member is wrong. errors lists every bad field at once, each with a code from the table below and a message; field is the parameter's or member's name (tags[2] for an item of a list), or the empty string when the body as a whole is at fault. Fix them all and send the request again."},
	guidepost.EUNAUTHORIZED: {"Not signed in",
		"No bearer token was sent where one is needed, or the token is not valid: forged, signed with another key, for an account that no longer exists, or for a session that has ended (logout, password change). Refreshing cannot help: sign in again."},
	guidepost.ETOKENEXPIRED: {"Access token expired",
		"The access token was genuine but is past its lifetime (TOKEN_TTL). Exchange your refresh token for a new one (POST /v1/auth/refresh) and repeat the request; only if that fails too, sign in again."},
	guidepost.ECREDENTIALS: {"Email or password incorrect",
		"A log-in's email or password does not match an account (one answer for both, so that nobody learns which emails are registered). Nothing was signed out: show the log-in form again. errors names password with code incorrect."},
	guidepost.EFORBIDDEN: {"Not allowed",
		"You are signed in, but this is not yours to change or see (another user's guide or photo)."},
	guidepost.ENOTFOUND: {"Not found",
		"Nothing exists at this address, or it is not yours to know of."},
	guidepost.ECONFLICT: {"Conflict",
		"The request clashes with the current state: a request with the same Idempotency-Key still in progress, an email already registered, an upload with parts missing. The detail says which; errors names the field when there is one."},
	guidepost.ETOOLARGE: {"Too large",
		"The body is over the size limit (MAX_UPLOAD_BYTES for photos, 1 MiB for JSON). Send less."},
	guidepost.EUNSUPPORTED: {"Unsupported media type",
		"The body is of a type this route does not take: JSON routes want Content-Type: application/json, photo uploads multipart/form-data with a JPEG, PNG, WebP or HEIC file. errors names Content-Type or the file."},
	guidepost.EUNPROCESSABLE: {"Cannot be processed",
		"The request is well-formed but cannot be done as asked: a photo with too many pixels or a damaged header, an Idempotency-Key reused with another body, a photo without a location. The field's message says what will work."},
	guidepost.EUNAVAILABLE: {"Try again shortly",
		"A dependency is down or the server is overloaded; nothing was changed unless the detail says so. Retry after Retry-After seconds."},
	guidepost.ERATELIMITED: {"Too many requests",
		"A rate limit of your address or account is used up, or it has too many requests of one kind at once (uploads, bodies still arriving). Retry after Retry-After seconds; the RateLimit headers, when present, say how much is left."},
	guidepost.EQUOTA: {"Quota exceeded",
		"Your account's storage allowance is used up; the quota member names it. Delete photos to make room."},
	guidepost.EINTERNAL: {"Internal error",
		"A fault on the server's side. It is logged with the request_id: quote it when you report the problem."},
	codeMethodNotAllowed: {"Method not allowed",
		"This address exists but does not take this method."},
	codeBodyTimeout: {"Body too slow",
		"The request body (an upload or any other) stalled or arrived slower than the server's minimum rate; the connection was closed. Send it again on a better connection."},
}

// fieldCodeDocs explains each code a field error may carry. The codes are
// a contract: api/openapi.yaml lists the same ones (a test checks).
var fieldCodeDocs = map[string]string{
	guidepost.FREQUIRED:         "Missing or empty.",
	guidepost.FTOOLONG:          "Text longer than allowed; the message gives the limit.",
	guidepost.FTOOSHORT:         "Text shorter than allowed; the message gives the limit.",
	guidepost.FTOOMANY:          "A list with more items than allowed.",
	guidepost.FTOOLARGE:         "A file, or a number of bytes or pixels, over the limit.",
	guidepost.FOUTOFRANGE:       "A number outside its bounds.",
	guidepost.FINVALIDFORMAT:    "Not of the expected type or shape: not a number, not JSON, not an id, not an email address.",
	guidepost.FINVALIDCHARS:     "Holds control or bidirectional control characters, or is not UTF-8.",
	guidepost.FDUPLICATE:        "Given more than once.",
	guidepost.FUNKNOWNPARAMETER: "A query parameter this route does not take; the message lists those it does.",
	guidepost.FUNKNOWNFIELD:     "A body member this route does not take; the message lists those it does.",
	guidepost.FCONFLICT:         "Cannot be sent together with another field.",
	guidepost.FNOTYOURS:         "Names no photo of yours: another user's, or none at all.",
	guidepost.FNOTREADY:         "A photo still being processed; try again in a few seconds.",
	guidepost.FFAILED:           "A photo that failed processing; its failure says what will work.",
	guidepost.FNOLOCATION:       "A photo without a location in its metadata.",
	guidepost.FINCORRECT:        "A password that does not match.",
	guidepost.FTAKEN:            "Already used by another account.",
	guidepost.FEXPIRED:          "A cursor past its lifetime; start the search again.",
	guidepost.FMISMATCH:         "Does not match what the request or the file says elsewhere.",
	guidepost.FINUSE:            "An Idempotency-Key held by a request still in progress.",
	guidepost.FUNSUPPORTED:      "A type of file or body this route does not take.",
	guidepost.FINCOMPLETE:       "Parts of an upload are missing.",
	guidepost.FLIMITREACHED:     "An allowance this request would pass.",
	guidepost.FNOTFOUND:         "Names nothing that exists, or nothing any more (a user id of no account, a deleted guide).",
	guidepost.FSELF:             "Names the caller where another is wanted (reporting or blocking yourself).",
	guidepost.FRATELIMITED:      "A rate or concurrency limit refused the request; limit names it, and Retry-After says when to come back.",
	guidepost.FNOTGUEST:         "An account that is not a guest: only a guest can be upgraded.",
	guidepost.FNOPASSWORD:       "A guest account, which has no password: upgrade it instead.",
	guidepost.FSTATE:            "Not in the state this request needs (an upload being completed, or completed already).",
}

// problemTitle is the title every problem of code carries.
func problemTitle(code string, status int) string {
	if d, ok := problemDocs[code]; ok {
		return d.Title
	}
	return http.StatusText(status)
}

var problemPage = template.Must(template.New("problem").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body>
<h1>{{.Title}}</h1>
<p>Problem type <code>/problems/{{.Code}}</code>, HTTP status {{.Status}}.</p>
<p>{{.About}}</p>
{{- if .Fields}}
<h2>Field error codes</h2>
<table>
<tr><th>code</th><th>meaning</th></tr>
{{- range .Fields}}
<tr><td><code>{{.Code}}</code></td><td>{{.About}}</td></tr>
{{- end}}
</table>
{{- end}}
<p><a href="/problems">Every problem type</a> · <a href="/openapi.yaml">the API document</a></p>
</body></html>
`))

var problemIndex = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Problem types</title></head>
<body>
<h1>Problem types</h1>
<p>Every error is application/problem+json (RFC 9457); its type names one of these.</p>
<ul>
{{- range .}}
<li><a href="/problems/{{.Code}}"><code>{{.Code}}</code></a> ({{.Status}}): {{.Title}}</li>
{{- end}}
</ul>
</body></html>
`))

type problemView struct {
	Code   string
	Status int
	problemDoc
	Fields []fieldCodeView
}

type fieldCodeView struct{ Code, About string }

func problemViews() []problemView {
	out := make([]problemView, 0, len(problemDocs))
	for code, d := range problemDocs {
		out = append(out, problemView{Code: code, Status: statusOf[code], problemDoc: d})
	}
	slices.SortFunc(out, func(a, b problemView) int {
		return cmp.Or(cmp.Compare(a.Status, b.Status), cmp.Compare(a.Code, b.Code))
	})
	return out
}

// serveProblems is GET /problems: the index of problem types.
func serveProblems(c *gin.Context) {
	c.Header("Content-Type", "text/html; charset=utf-8")
	c.Header("Cache-Control", "public, max-age=86400")
	c.Status(http.StatusOK)
	problemIndex.Execute(c.Writer, problemViews())
}

// serveProblemType is GET /problems/{type}, where each problem's type URI
// resolves. The field codes are shown on every type whose problems name
// fields.
func serveProblemType(c *gin.Context) {
	code := c.Param("type")
	d, ok := problemDocs[code]
	if !ok {
		fail(c, guidepost.Errorf(guidepost.ENOTFOUND, "no problem type %q; GET /problems lists them", printable(code)))
		return
	}
	v := problemView{Code: code, Status: statusOf[code], problemDoc: d}
	switch code {
	case guidepost.EINVALID, guidepost.ECONFLICT, guidepost.ETOOLARGE, guidepost.EUNSUPPORTED, guidepost.EUNPROCESSABLE,
		guidepost.ECREDENTIALS, guidepost.ERATELIMITED:
		for _, fc := range slices.Sorted(maps.Keys(fieldCodeDocs)) {
			v.Fields = append(v.Fields, fieldCodeView{fc, fieldCodeDocs[fc]})
		}
	}
	c.Header("Content-Type", "text/html; charset=utf-8")
	c.Header("Cache-Control", "public, max-age=86400")
	c.Status(http.StatusOK)
	problemPage.Execute(c.Writer, v)
}
