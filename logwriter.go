package guidepost

import (
	"io"
	"sync"
	"time"
)

// LogWriter batches log lines for a long-running process: one write system
// call per flush instead of one per line (the access log writes a line per
// request, and the call cost a hot answer as much as the rest of its
// logging). Lines go out every interval, at once when size bytes wait,
// and on Close; a line written after Close goes straight out, so nothing
// logged while a process stops is lost. Safe for concurrent use; lines
// leave in the order they were written.
type LogWriter struct {
	out  io.Writer
	size int

	mu     sync.Mutex // guards pending and closed
	buf    []byte     // lines not yet handed to out
	closed bool

	// outMu orders the writes to out: a flush takes every pending line
	// under mu, then writes them under outMu alone, so a slow out never
	// holds a line's writer for longer than an append.
	outMu sync.Mutex
	spare []byte // the last flushed buffer, reused; guarded by outMu

	stop, stopped chan struct{}
	closeOnce     sync.Once
}

// NewLogWriter starts the flusher; Close stops it.
func NewLogWriter(out io.Writer, interval time.Duration, size int) *LogWriter {
	w := &LogWriter{out: out, size: size, buf: make([]byte, 0, size), spare: make([]byte, 0, size),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go w.flushEvery(interval)
	return w
}

func (w *LogWriter) flushEvery(interval time.Duration) {
	defer close(w.stopped)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			w.Flush()
		case <-w.stop:
			return
		}
	}
}

// Write keeps a copy of p (slog hands over one whole record per call).
func (w *LogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.outMu.Lock()
		defer w.outMu.Unlock()
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	full := len(w.buf) >= w.size
	w.mu.Unlock()
	if full {
		// The writer that filled the buffer pays the write: lines cannot
		// pile up faster than out takes them.
		if err := w.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes every pending line now.
func (w *LogWriter) Flush() error { return w.flush(false) }

// flush hands the pending lines to out; close marks w closed in the same
// step, so a line written after it waits on outMu and follows them.
func (w *LogWriter) flush(close bool) error {
	w.outMu.Lock()
	defer w.outMu.Unlock()
	w.mu.Lock()
	pending := w.buf
	w.buf = w.spare[:0]
	w.closed = w.closed || close
	w.mu.Unlock()
	w.spare = pending
	if len(pending) == 0 {
		return nil
	}
	_, err := w.out.Write(pending)
	return err
}

// Close stops the flusher and writes what is pending; later lines are
// written as they come. Closing twice is harmless.
func (w *LogWriter) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		<-w.stopped
	})
	return w.flush(true)
}
