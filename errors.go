// Package guidepost holds the vocabulary shared by every feature package:
// the error codes that the API maps to HTTP statuses in one table, and the
// clock that services take so tests can move time.
package guidepost

import (
	"errors"
	"fmt"
)

// Error codes. Feature packages speak only these; api/ owns their mapping to
// HTTP statuses, so a new feature cannot invent a status of its own.
const (
	EINVALID       = "invalid"        // the request is malformed or a field is wrong
	EUNAUTHORIZED  = "unauthorized"   // no valid credentials
	EFORBIDDEN     = "forbidden"      // valid credentials, not allowed
	ENOTFOUND      = "not_found"      // the thing does not exist
	ECONFLICT      = "conflict"       // clashes with current state
	ETOOLARGE      = "too_large"      // the body is over the limit
	EUNSUPPORTED   = "unsupported"    // a media type we do not accept
	EUNPROCESSABLE = "unprocessable"  // well-formed but refused (e.g. too many pixels, key reused with another body)
	EUNAVAILABLE   = "unavailable"    // a dependency is down; retry later
	ERATELIMITED   = "rate_limited"   // too many requests from this address or account; retry after the time given
	EQUOTA         = "quota_exceeded" // the account's allowance (photos, bytes stored) is used up
	EINTERNAL      = "internal"       // a bug or an unexpected failure; never shown
)

// FieldError names one bad field, so a client can point at it.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an application error: a code, a message safe to show a user, the
// fields at fault, and the cause (kept for logs, never shown).
type Error struct {
	Code    string
	Message string
	Fields  []FieldError
	Limit   *Limit // for ERATELIMITED and EQUOTA: the allowance at stake
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an application error with a user-facing message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap keeps cause for the logs while showing message to the client.
func Wrap(code string, cause error, message string) *Error {
	return &Error{Code: code, Message: message, Err: cause}
}

// Invalid is a validation error naming each bad field.
func Invalid(fields ...FieldError) *Error {
	msg := "the request has invalid fields"
	if len(fields) == 1 {
		msg = fields[0].Field + ": " + fields[0].Message
	}
	return &Error{Code: EINVALID, Message: msg, Fields: fields}
}

// ErrorCode returns the code of the first application error in err's chain,
// EINTERNAL for any other error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the user-facing message; internal errors get a
// generic one so that no driver text reaches a client.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return e.Message
	}
	return "An internal error occurred."
}

// ErrorLimit returns the allowance a refused request ran into, if any.
func ErrorLimit(err error) *Limit {
	var e *Error
	if errors.As(err, &e) {
		return e.Limit
	}
	return nil
}

// ErrorFields returns the fields at fault, if any.
func ErrorFields(err error) []FieldError {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// Fields collects validation problems so a validator can report all of them
// at once instead of stopping at the first.
type Fields []FieldError

// Add records a problem with field.
func (f *Fields) Add(field, message string) { *f = append(*f, FieldError{field, message}) }

// Err returns nil when nothing was added, else an EINVALID error.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Invalid(f...)
}
