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
// A context that is a request's own state (RequestIDContext) is asked
// directly: Value would box the id into an interface, an allocation
// on every line logged, the access line of each hot answer among them.
func RequestID(ctx context.Context) string {
	if r, ok := ctx.(RequestIDContext); ok {
		return r.RequestID()
	}
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// RequestIDContext is a context type that knows its request's id itself;
// its Value must answer the same id for the key RequestID reads
// (IsRequestIDKey), for the contexts derived from it.
type RequestIDContext interface {
	context.Context
	RequestID() string
}

// IsRequestIDKey says whether key is the one RequestID reads: a context
// type of its own (the API's per-request state) can then answer it from
// Value itself, without a WithValue layer on top.
func IsRequestIDKey(key any) bool { return key == requestIDKey }
