package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The lazy deadline keeps context.WithDeadline's promises: Done closes at
// the deadline with DeadlineExceeded (also for a context derived from it,
// and for one asked only after the deadline passed), a cancelled parent
// cancels it, the handler's return (stop) cancels it, and until someone
// waits no timer is started.
func TestLazyDeadlineKeepsTheDeadlinePromises(t *testing.T) {
	type key struct{}
	parent := context.WithValue(context.Background(), key{}, "v")

	c := withLazyDeadline(parent, time.Now().Add(50*time.Millisecond))
	if c.real.Load() != nil || c.Err() != nil || c.Value(key{}) != "v" {
		t.Fatalf("before any wait: made %v, Err %v, Value %v", c.real.Load() != nil, c.Err(), c.Value(key{}))
	}
	if d, ok := c.Deadline(); !ok || d != c.at {
		t.Fatalf("Deadline %v %v, want %v", d, ok, c.at)
	}
	child, cancel := context.WithCancel(c)
	defer cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a context derived from it did not end at the deadline")
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) ||
		!errors.Is(context.Cause(c), context.DeadlineExceeded) {
		t.Fatalf("at the deadline: Err %v, child %v, Cause %v", c.Err(), child.Err(), context.Cause(c))
	}
	c.stop()

	late := withLazyDeadline(parent, time.Now().Add(-time.Millisecond))
	endedWith(t, "past its deadline, never waited on", late, context.DeadlineExceeded)
	if !errors.Is(context.Cause(late), context.DeadlineExceeded) {
		t.Fatalf("past its deadline: Cause %v", context.Cause(late))
	}

	p, cancelParent := context.WithCancel(parent)
	c = withLazyDeadline(p, time.Now().Add(time.Hour))
	done := c.Done()
	cancelParent()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's cancel did not reach it")
	}
	if !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("parent cancelled: Err %v", c.Err())
	}

	c = withLazyDeadline(parent, time.Now().Add(time.Hour))
	c.stop()
	if c.real.Load() != nil {
		t.Fatal("stop started a timer no one waits on")
	}
	endedWith(t, "after stop", c, context.Canceled)
	if d, ok := withLazyDeadline(c, time.Now().Add(2*time.Hour)).Deadline(); !ok || d != c.at {
		t.Fatalf("under an earlier deadline: %v %v, want %v", d, ok, c.at)
	}
}

// endedWith checks that ctx's Err (asked first, as a handler's loop does)
// is want and that its Done is closed.
func endedWith(t *testing.T, what string, ctx context.Context, want error) {
	t.Helper()
	if !errors.Is(ctx.Err(), want) {
		t.Fatalf("%s: Err %v, want %v", what, ctx.Err(), want)
	}
	select {
	case <-ctx.Done():
	default:
		t.Fatalf("%s: Done not closed", what)
	}
}
