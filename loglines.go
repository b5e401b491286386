package guidepost

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NewLogHandler is LogHandler over slog's JSON handler (json) or text
// handler writing to w, which can also write a line of a fixed shape
// (LineWriter) without slog's work per attribute: the API's access line,
// one per request, cost a hot answer more than its handler did.
func NewLogHandler(w io.Writer, json bool, opts *slog.HandlerOptions) slog.Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	out := &lockedWriter{w: w}
	newHandler := func(w io.Writer) slog.Handler {
		if json {
			return slog.NewJSONHandler(w, opts)
		}
		return slog.NewTextHandler(w, opts)
	}
	// A handler that rewrites attributes or adds the source could make a
	// line no template predicts: it writes every line through slog.
	plainLines := opts.ReplaceAttr == nil && !opts.AddSource
	return lineHandler{logHandler: logHandler{newHandler(out)}, out: out, json: json, make: newHandler, lines: plainLines}
}

// LineWriter is a handler that writes lines of one shape from a template
// (NewLogHandler's, under any With).
type LineWriter interface {
	slog.Handler
	// Line is the template of a record of level and msg with attributes
	// of attrs' keys and kinds (string, int64, duration) logged with a
	// request id; nil when the handler cannot make one.
	Line(level slog.Level, msg string, attrs []slog.Attr) *Line
}

// lockedWriter keeps slog's lines and a Line's whole, whichever writes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

type lineHandler struct {
	logHandler
	out   *lockedWriter
	json  bool
	make  func(io.Writer) slog.Handler      // the same handler over another writer, for templates
	with  []func(slog.Handler) slog.Handler // the With and WithGroup calls since, replayed on a template's
	lines bool
}

func (h lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.derive(func(x slog.Handler) slog.Handler { return x.WithAttrs(attrs) })
}

func (h lineHandler) WithGroup(name string) slog.Handler {
	return h.derive(func(x slog.Handler) slog.Handler { return x.WithGroup(name) })
}

func (h lineHandler) derive(with func(slog.Handler) slog.Handler) slog.Handler {
	h.logHandler = logHandler{with(h.Handler)}
	h.with = append(slices.Clip(h.with), with)
	return h
}

// The values a template is rendered with, found again in its output:
// plain in both formats, and unlike anything a line holds around them.
var (
	lineTime      = time.Date(2001, 2, 3, 4, 5, 6, 789_000_000, time.UTC)
	lineRequestID = "gpLineRequestIDq"
)

func lineMarker(i int, kind slog.Kind) slog.Value {
	switch kind {
	case slog.KindString:
		return slog.StringValue("gpLineValue" + strconv.Itoa(i) + "q")
	case slog.KindInt64:
		return slog.Int64Value(987_654_000 + int64(i))
	case slog.KindDuration:
		return slog.DurationValue(time.Duration(987_654_000 + i))
	}
	return slog.Value{}
}

func (h lineHandler) Line(level slog.Level, msg string, attrs []slog.Attr) *Line {
	if !h.lines {
		return nil
	}
	l := &Line{out: h.out, json: h.json}
	marked := make([]slog.Attr, len(attrs))
	markers := []string{string(l.appendTime(nil, lineTime))}
	for i, a := range attrs {
		v := lineMarker(i, a.Value.Kind())
		if v.Kind() != a.Value.Kind() {
			return nil
		}
		marked[i] = slog.Attr{Key: a.Key, Value: v}
		markers = append(markers, string(l.appendValue(nil, v)))
		l.keys, l.kinds = append(l.keys, a.Key), append(l.kinds, v.Kind())
	}
	markers = append(markers, lineRequestID)
	var rendered bytes.Buffer
	th := h.make(&rendered)
	for _, with := range h.with {
		th = with(th)
	}
	rec := slog.NewRecord(lineTime, level, msg, 0)
	rec.AddAttrs(marked...)
	if LogHandler(th).Handle(WithRequestID(context.Background(), lineRequestID), rec) != nil {
		return nil
	}
	rest := rendered.String()
	for _, m := range markers {
		before, after, ok := strings.Cut(rest, m)
		if !ok {
			return nil
		}
		l.segs, rest = append(l.segs, before), after
	}
	l.segs = append(l.segs, rest)
	return l
}

// Line writes records of one shape: the template's text between the
// values, and the values, as slog would write them.
type Line struct {
	out   *lockedWriter
	json  bool
	segs  []string // around the time, each attribute's value and the request id
	keys  []string
	kinds []slog.Kind
}

var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

// Write writes the record at t with attrs (the template's keys and
// kinds) and requestID, as the handler the template came from would;
// false, writing nothing, when a string would need escaping or quoting
// (or requestID is empty): the caller then logs the record through slog.
func (l *Line) Write(t time.Time, attrs []slog.Attr, requestID string) bool {
	if len(attrs) != len(l.kinds) || !plainValue(requestID) {
		return false
	}
	bp := lineBufs.Get().(*[]byte)
	defer lineBufs.Put(bp)
	b := append((*bp)[:0], l.segs[0]...)
	b = l.appendTime(b, t)
	for i, a := range attrs {
		if a.Key != l.keys[i] || a.Value.Kind() != l.kinds[i] ||
			a.Value.Kind() == slog.KindString && a.Value.String() != "" && !plainValue(a.Value.String()) {
			return false
		}
		b = append(b, l.segs[i+1]...)
		b = l.appendValue(b, a.Value)
	}
	b = append(b, l.segs[len(attrs)+1]...)
	b = append(b, requestID...)
	b = append(b, l.segs[len(attrs)+2]...)
	*bp = b
	l.out.Write(b) // as slog's handlers, a line that cannot be written is dropped
	return true
}

// appendTime is the built-in time as slog's handlers write it.
func (l *Line) appendTime(b []byte, t time.Time) []byte {
	t = t.Round(0)
	if l.json {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	// slog's text handler: RFC 3339 with exactly three decimals.
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	b = t.Truncate(time.Millisecond).Add(time.Millisecond/10).AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendValue writes a plain string, an int64 or a duration as slog's
// handlers do; the template holds a JSON string's quotes.
func (l *Line) appendValue(b []byte, v slog.Value) []byte {
	switch v.Kind() {
	case slog.KindString:
		if v.String() == "" && !l.json {
			return append(b, `""`...)
		}
		return append(b, v.String()...)
	case slog.KindDuration:
		if !l.json {
			return append(b, v.Duration().String()...)
		}
		return strconv.AppendInt(b, int64(v.Duration()), 10)
	}
	return strconv.AppendInt(b, v.Int64(), 10)
}

// plainValue: s is written as it is by both handlers, unquoted in text
// and unescaped in JSON (printable ASCII but for the space, '"', '\\' and
// '=').
func plainValue(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !plainBytes[s[i]] {
			return false
		}
	}
	return true
}

// plainBytes: one lookup a byte, where the comparisons cost the access
// line a tenth of its instructions.
var plainBytes = func() (t [256]bool) {
	for b := '!'; b <= '~'; b++ {
		t[b] = b != '"' && b != '\\' && b != '='
	}
	return t
}()
