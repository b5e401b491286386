package guidepost

import "context"

// ctxKey is private so no other package can set or clobber these values.
type ctxKey int

const requestIDKey ctxKey = iota

// WithRequestID returns ctx carrying the id of the request being served;
// the API sets it, services never need to read it themselves: a logger
// built on LogHandler adds it to every line logged with the context.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

// RequestID is the id WithRequestID stored, or "" outside a request.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// IsRequestIDKey says whether key is the one RequestID reads: a context
// type of its own (the API's per-request state) can then answer it from
// Value itself, without a WithValue layer on top.
func IsRequestIDKey(key any) bool { return key == requestIDKey }
