// Package guidepost holds the vocabulary shared by every feature package,
// one concept a file:
//
//   - errors.go: the error codes, field codes and Error that the API maps
//     to HTTP statuses in one table, and Limit, the allowance a refusal names;
//   - rate.go: Rate and RateResult, the allowances shared by every API
//     process, and the address scopes (an IPv6 /64, /56, /48) they count;
//   - inflight.go: InFlight, this process's per-key cap on requests in flight;
//   - text.go: TextProblem, the one rule for text a person typed;
//   - page.go: a "mine" list's page size and cursor;
//   - clock.go: the Clock that services take, so tests can move time;
//   - context.go, log.go: the request id a context carries, and the log
//     handler that writes it on every line;
//   - readmark.go: the read mark that lets a client read its own writes;
//   - defaults.go: Default, which fills a setting left unset.
package guidepost

import (
	"errors"
	"fmt"
	"time"
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
	ETOKENEXPIRED  = "token_expired"  // a genuine access token past its expiry: refresh it, the session may live on
	ECREDENTIALS   = "credentials"    // a log-in whose email or password is wrong: not a dead session, nothing to sign out of
	EINTERNAL      = "internal"       // a bug or an unexpected failure; never shown
)

// Field codes say what is wrong with a field, for a program to act on; the
// message beside one says it in words. A code's meaning never changes, and
// one mistake has one code and one wording wherever the field travels
// (query string, JSON body, multipart form, header).
const (
	FREQUIRED         = "required"           // missing or empty
	FTOOLONG          = "too_long"           // text longer than allowed
	FTOOSHORT         = "too_short"          // text shorter than allowed
	FTOOMANY          = "too_many"           // a list with more items than allowed
	FTOOLARGE         = "too_large"          // a file or byte count over the limit
	FOUTOFRANGE       = "out_of_range"       // a number outside its bounds
	FINVALIDFORMAT    = "invalid_format"     // not of the expected type or shape
	FINVALIDCHARS     = "invalid_characters" // control or bidirectional characters, or not UTF-8
	FDUPLICATE        = "duplicate"          // given more than once
	FUNKNOWNPARAMETER = "unknown_parameter"  // a query parameter the route does not know
	FUNKNOWNFIELD     = "unknown_field"      // a body member the route does not know
	FCONFLICT         = "conflicting"        // cannot be sent together with another field
	FNOTYOURS         = "not_yours"          // names no photo (or other thing) of the caller's
	FNOTREADY         = "not_ready"          // a photo still being processed
	FFAILED           = "failed"             // a photo that failed processing
	FNOLOCATION       = "no_location"        // a photo without GPS in its metadata
	FINCORRECT        = "incorrect"          // a password that does not match
	FTAKEN            = "taken"              // already used by another account
	FEXPIRED          = "expired"            // a cursor past its lifetime
	FMISMATCH         = "mismatch"           // does not match what the request or the file says elsewhere
	FINUSE            = "in_use"             // an idempotency key held by a request in progress
	FUNSUPPORTED      = "unsupported"        // a type of file or body the server does not accept
	FINCOMPLETE       = "incomplete"         // parts of an upload are missing
	FLIMITREACHED     = "limit_reached"      // an allowance this request would pass
	FNOTFOUND         = "not_found"          // names nothing that exists (or nothing any more)
	FSELF             = "self"               // names the caller, where another is wanted
	FRATELIMITED      = "rate_limited"       // a rate or concurrency limit refused the request; Limit names it
	FNOTGUEST         = "not_guest"          // an account that is no guest (upgrade)
	FNOPASSWORD       = "no_password"        // a guest account, which has no password to change
	FSTATE            = "wrong_state"        // a thing not in the state the request needs (an upload completing)
)

// FieldError names one bad field, so a client can point at it. Field is
// the field's or parameter's name (tags[2] for an item of a list), or ""
// (the JSON pointer to the whole document) when the body as a whole is at
// fault, so it cannot be mistaken for a member named "body".
type FieldError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Limit names the limit a rate_limited entry ran into ("upload",
	// "login_ip"), so a client can tell its limits apart.
	Limit string `json:"limit,omitempty"`
}

// Field builds a FieldError.
func Field(field, code, message string) FieldError {
	return FieldError{Field: field, Code: code, Message: message}
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

// Limit is what ERATELIMITED and EQUOTA errors carry, so the API can tell
// a client which allowance it ran into and when to come back.
type Limit struct {
	Name       string        // the Rate's or quota's name
	Quota      int64         // events per Window, or the quota's size
	Window     time.Duration // 0 for a quota or a concurrency cap
	Remaining  int64
	Used       int64         // quotas: how much is used now
	RetryAfter time.Duration // rate limits: when to try again
	ResetAfter time.Duration // rate limits: when the whole allowance is back
}

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
		msg = fields[0].Sentence()
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

// Sentence is the error in words, naming the field.
func (f FieldError) Sentence() string {
	if f.Field == "" {
		return "the request body " + f.Message
	}
	return f.Field + ": " + f.Message
}

// Fields collects validation problems so a validator can report all of them
// at once instead of stopping at the first.
type Fields []FieldError

// Add records a problem with field.
func (f *Fields) Add(field, code, message string) { *f = append(*f, Field(field, code, message)) }

// Err returns nil when nothing was added, else an EINVALID error.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Invalid(f...)
}

// JoinFields reports the field problems of several checks in one error,
// so a client hears of every bad field at once. It returns nil when every
// err is nil, and the first error naming no field (an outage, a refusal of
// the whole request) as it is. The joined error is EINVALID when any part
// is, else the first part's code (all of a request's problems answer with
// one status: a bad value is fixed first).
func JoinFields(errs ...error) error {
	var joined *Error
	var first error
	n := 0
	for _, err := range errs {
		if err == nil {
			continue
		}
		if n++; n == 1 {
			first = err
		}
		var e *Error
		if !errors.As(err, &e) || len(e.Fields) == 0 {
			return err
		}
		if joined == nil {
			joined = &Error{Code: e.Code, Limit: e.Limit, Err: e.Err}
		}
		if e.Code == EINVALID {
			joined.Code = EINVALID
		}
		joined.Fields = append(joined.Fields, e.Fields...)
	}
	if n <= 1 {
		return first // as it was said
	}
	joined.Message = Invalid(joined.Fields...).Message
	return joined
}
