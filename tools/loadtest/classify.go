package main

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// failKind names why a request did not succeed; "" is success (2xx).
type failKind string

const (
	failNone      failKind = ""
	failTimeout   failKind = "timeout"
	failRefused   failKind = "connection_refused"
	failConn      failKind = "connection_error" // reset, EOF, broken pipe: the server dropped us
	fail5xx       failKind = "5xx"
	fail4xx       failKind = "4xx"
	failCanceled  failKind = "canceled" // our own hard deadline or Ctrl-C, not the server's fault
	failBadAnswer failKind = "bad_response"
	failOther     failKind = "other"
)

// classify maps a status code or transport error to a failKind.
func classify(code int, err error) failKind {
	if err != nil {
		return classifyErr(err)
	}
	switch {
	case code >= 200 && code < 300, code == 304: // 304: a revalidation that held
		return failNone
	case code >= 500:
		return fail5xx
	case code >= 400:
		return fail4xx
	default:
		return failOther // 1xx/3xx but 304: the contract has none
	}
}

func classifyErr(err error) failKind {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return failCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return failTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return failRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return failConn
	case errors.As(err, &ne):
		return failConn
	default:
		return failOther
	}
}

// rejected reports answers that say "not done, try later" before any work:
// the server shed load. Such a request certainly had no effect.
func rejected(code int) bool { return code == 503 || code == 429 }

// mayHaveApplied tells whether a request may have taken effect on the
// server: refused connections, 4xx and shed requests did not; successes did;
// timeouts, dropped connections and other 5xx may have.
func mayHaveApplied(code int, fk failKind) bool {
	switch fk {
	case failRefused, fail4xx:
		return false
	case fail5xx:
		return !rejected(code)
	default:
		return true
	}
}
