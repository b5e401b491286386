package cache

import (
	"context"
	"log/slog"
)

// otterLogger sends otter's swallowed refresh errors to slog.
type otterLogger struct{ log *slog.Logger }

func (l otterLogger) Warn(ctx context.Context, msg string, err error) {
	l.log.WarnContext(ctx, "guides cache: "+msg, "err", err)
}

func (l otterLogger) Error(ctx context.Context, msg string, err error) {
	l.log.ErrorContext(ctx, "guides cache: "+msg, "err", err)
}
