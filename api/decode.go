package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
)

// Time a client gets to send a body. The server has no global ReadTimeout,
// since a 15 MB photo from a phone on a slow network legitimately takes a
// minute; instead each route bounds its own body, so slow senders cannot
// hold the concurrency slots that every other request needs.
const (
	jsonBodyTime   = 15 * time.Second
	uploadBodyTime = 3 * time.Minute
)

func bodyDeadline(c *gin.Context, d time.Duration) {
	// Only fails for writers without deadline support (test recorders).
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(d))
}

// maxJSONBody bounds every JSON request body. The largest legitimate one is
// a guide with a 10,000-character body (≤ 40 KB of UTF-8).
const maxJSONBody = 1 << 20

// decodeJSON reads a JSON object strictly: unknown fields, trailing data and
// wrong types are EINVALID naming the field, so clients learn of typos.
func decodeJSON(c *gin.Context, dst any) error {
	bodyDeadline(c, jsonBodyTime)
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxJSONBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		// Name the field that overflowed when we can, so a 10 MB title is
		// reported as a bad title rather than a bare 413.
		if key := lastKey(body); key != "" {
			return guidepost.Invalid(guidepost.FieldError{Field: key, Message: "is far too long"})
		}
		return guidepost.Errorf(guidepost.ETOOLARGE, "the request body is larger than %d bytes", maxJSONBody)
	case err != nil:
		return errClientGone
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return guidepost.Invalid(guidepost.FieldError{Field: "body", Message: "must be a JSON object"})
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return guidepost.Invalid(guidepost.FieldError{Field: "body", Message: "must hold a single JSON object"})
	}
	return nil
}

// jsonError turns encoding/json's errors into field errors.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return guidepost.Invalid(guidepost.FieldError{Field: field, Message: "must be of type " + jsonType(typeErr.Type.Kind().String())})
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return guidepost.Invalid(guidepost.FieldError{Field: "body", Message: "is not valid JSON"})
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		if field == "" {
			return guidepost.Invalid(guidepost.FieldError{Field: "body", Message: "has a member with an empty name"})
		}
		// The name is the client's: bounded and printable before it is echoed.
		return guidepost.Invalid(guidepost.FieldError{Field: printable(field), Message: "is not a known field"})
	default:
		return guidepost.Invalid(guidepost.FieldError{Field: "body", Message: fmt.Sprintf("cannot be read: %v", err)})
	}
}

func jsonType(kind string) string {
	switch kind {
	case "float32", "float64", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "number"
	case "slice", "array":
		return "array"
	case "map", "struct":
		return "object"
	}
	return kind
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
