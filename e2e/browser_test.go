package e2e

// A real headless Chromium driven over the DevTools protocol, with software
// WebGL (SwiftShader), for the pages the binary serves.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's chromium, which scripts/stack.sh installs. The
// test skips only where it cannot be installed; where it could be, a
// missing browser is a failure, not a silent skip.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := exec.LookPath("apt-get"); err == nil && os.Geteuid() == 0 {
		t.Fatal("chromium is not installed: `make stack` (scripts/stack.sh) installs it")
	}
	t.Skip("chromium is not installed and cannot be here (apt-get install chromium needs root and apt)")
	return ""
}

type browser struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string // console errors and uncaught exceptions
}

// newBrowser starts Chromium with a width×height viewport; it is stopped,
// and its console reader joined, when the test ends.
func newBrowser(t *testing.T, width, height int64) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox,
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	b := &browser{t: t, ctx: ctx}
	// Subscribed before any page runs (the first subscription starts the
	// browser). A dedicated worker's console is not the page's: MapLibre's
	// tile failures reach it as map errors, which the page logs.
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.problems = append(b.problems, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		<-done
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return b
}

// consoleProblems are the console errors and uncaught exceptions so far.
func (b *browser) consoleProblems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// do runs actions, failing the test with what on error.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v; console: %s", what, err, strings.Join(b.consoleProblems(), "; "))
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) into T.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v; console: %s", expr, err, strings.Join(b.consoleProblems(), "; "))
	}
	return v
}

// pollPage polls a JavaScript expression every 100 ms until it is truthy and
// returns its value; past limit the test fails naming what it waited for.
func pollPage[T any](b *browser, what string, limit time.Duration, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Poll[T](expr,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(limit)))
	if err != nil {
		b.t.Fatalf("waiting %s for %s: %v; console: %s", limit, what, err, strings.Join(b.consoleProblems(), "; "))
	}
	return v
}
