package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
)

// Time a client gets to send a body. The server has no global ReadTimeout,
// since a 15 MB photo from a phone on a slow network legitimately takes a
// minute; instead an upload's body is bounded by the upload gate and every
// other body by the body gate (bodies.go), each under a minimum rate, so
// slow senders cannot hold the concurrency slots that every other request
// needs.
const (
	jsonBodyTime   = 15 * time.Second
	uploadBodyTime = 3 * time.Minute
)

// maxJSONBody bounds every JSON request body. The largest legitimate one is
// a guide with a 10,000-character body (≤ 40 KB of UTF-8).
const maxJSONBody = 1 << 20

// wholeBody names the body as a whole in a field error: the JSON pointer
// to the document's root, which no member's name can be.
const wholeBody = ""

// decodeJSON reads a JSON object strictly: a body that is not declared
// JSON is 415; unknown fields, trailing data and wrong types are EINVALID
// naming the field, so clients learn of typos.
func decodeJSON(c *gin.Context, dst any) error {
	if err := jsonContentType(c); err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxJSONBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		// Name the field that overflowed when we can, so a 10 MB title is
		// reported as a bad title rather than a bare 413.
		if key := lastKey(body); key != "" {
			return guidepost.Invalid(guidepost.Field(key, guidepost.FTOOLONG, "is far too long"))
		}
		return guidepost.Errorf(guidepost.ETOOLARGE, "the request body is larger than %d bytes", maxJSONBody)
	case err != nil:
		return errClientGone
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return guidepost.Invalid(guidepost.Field(wholeBody, guidepost.FREQUIRED, "is required: a JSON object"))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err, dst)
	}
	if dec.More() {
		return guidepost.Invalid(guidepost.Field(wholeBody, guidepost.FINVALIDFORMAT, "must hold a single JSON object"))
	}
	return nil
}

// jsonContentType refuses a body not declared as JSON (415) before it is
// read: a form or text body must not be taken for JSON by accident. A
// request with no body may leave the type out.
func jsonContentType(c *gin.Context) error {
	ct := c.GetHeader("Content-Type")
	if ct == "" && c.Request.ContentLength == 0 {
		return nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	charset := strings.ToLower(params["charset"])
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) && (charset == "" || charset == "utf-8") {
		return nil
	}
	switch c.Request.Method {
	case http.MethodPost:
		c.Header("Accept-Post", "application/json")
	case http.MethodPatch:
		c.Header("Accept-Patch", "application/json")
	}
	return &guidepost.Error{Code: guidepost.EUNSUPPORTED, Message: "the body must be JSON, sent with Content-Type: application/json",
		Fields: []guidepost.FieldError{guidepost.Field("Content-Type", guidepost.FUNSUPPORTED, "must be application/json")}}
}

// jsonError turns encoding/json's errors into field errors, worded as the
// same mistakes in a query string are (see queryParams).
func jsonError(err error, dst any) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return guidepost.Invalid(guidepost.Field(typeErr.Field, guidepost.FINVALIDFORMAT, "must be "+jsonType(typeErr.Type.Kind())))
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return guidepost.Invalid(guidepost.Field(wholeBody, guidepost.FINVALIDFORMAT, "is not valid JSON"))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		if field == "" {
			return guidepost.Invalid(guidepost.Field(wholeBody, guidepost.FUNKNOWNFIELD, "has a member with an empty name"))
		}
		// The name is the client's: bounded and printable before it is echoed.
		return guidepost.Invalid(guidepost.Field(printable(field), guidepost.FUNKNOWNFIELD, unknownName(jsonFields(dst))))
	default:
		return guidepost.Invalid(guidepost.Field(wholeBody, guidepost.FINVALIDFORMAT, fmt.Sprintf("cannot be read: %v", err)))
	}
}

// unknownName is the one wording of an unknown parameter or member.
func unknownName(known []string) string {
	if len(known) == 0 {
		return "is not known here (this route takes none)"
	}
	return "is not known here (known: " + strings.Join(known, ", ") + ")"
}

// jsonFields lists the members a body struct takes, from its json tags.
func jsonFields(dst any) []string {
	t := reflect.TypeOf(dst)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// jsonType says what a value of kind must be, as queryParams says it.
func jsonType(kind reflect.Kind) string {
	switch kind {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	}
	return "of another type"
}

// lastKey returns the top-level key whose value was being read when a
// truncated document ended.
func lastKey(prefix []byte) string {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	depth, key, expectKey := 0, "", false
	for {
		tok, err := dec.Token()
		if err != nil {
			return key
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
			expectKey = depth == 1
		case string:
			if depth == 1 && expectKey {
				key = v
			}
			expectKey = depth == 1 && !expectKey
		default:
			expectKey = depth == 1
		}
	}
}
