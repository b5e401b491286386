package guidepost

import (
	"context"
	"log/slog"
)

// LogHandler wraps h so that a record logged with a context (InfoContext
// and the like) carries the request_id of the request that caused it, so
// a service's lines join the request's access log line without the service
// knowing HTTP. Wrapping twice adds the id once. The id joins the record's
// own attributes, so under a WithGroup it lands inside that group.
func LogHandler(h slog.Handler) slog.Handler {
	if addsRequestID(h) {
		return h
	}
	return logHandler{h}
}

// addsRequestID: h is LogHandler's or NewLogHandler's.
func addsRequestID(h slog.Handler) bool {
	switch h.(type) {
	case logHandler, lineHandler:
		return true
	}
	return false
}

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(attrs)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.Handler.WithGroup(name)}
}

// Logger returns log with its handler wrapped by LogHandler, or a logger
// that discards when log is nil: the safe default for a service whose deps
// name no logger.
func Logger(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	if addsRequestID(log.Handler()) {
		return log
	}
	return slog.New(LogHandler(log.Handler()))
}
