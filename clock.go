package guidepost

import "time"

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
