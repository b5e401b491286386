package guidepost

import (
	"context"
	"time"
)

// Clock is injected wherever time decides behaviour (token expiry, sweeper
// ages), so tests can move it instead of sleeping.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the real time.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

// ClockFunc adapts a function, handy for tests.
type ClockFunc func() time.Time

func (f ClockFunc) Now() time.Time { return f() }

// Sleep waits d or until ctx ends, and reports whether d elapsed (false
// also when ctx had ended already).
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
