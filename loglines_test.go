package guidepost_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

// A Line writes the bytes slog writes for the same record, in both
// formats, under With and WithGroup; a value slog would quote or escape
// is refused, so the caller logs it through slog instead.
func TestLinesWriteWhatSlogWrites(t *testing.T) {
	at := time.Date(2026, 12, 2, 17, 4, 5, 120_450_000, time.FixedZone("KST", 9*3600))
	record := func(path, user string, took time.Duration) []slog.Attr {
		return []slog.Attr{slog.String("method", "GET"), slog.String("path", path), slog.Int("status", 200),
			slog.Duration("took", took), slog.String("user_id", user)}
	}
	plain := []struct {
		path, user, id string
		took           time.Duration
		at             time.Time
	}{
		{"/v1/guides/nearby", "", "0f1e2d3c4b5a69788796a5b4", 1234567 * time.Nanosecond, at},
		{"/v1/tiles/14/13967/6344.mvt", "u-7", "req-42", 3 * time.Second, at.Add(7 * time.Millisecond)},
		{"/v1/guides", "abc", "x", 0, at.Add(time.Hour).UTC()},
	}
	quoted := []struct{ path, user, id string }{
		{"/v1/guides/a b", "", "id"}, {`/v1/"q"`, "", "id"}, {"/v1/é", "", "id"}, {"/v1/a=b", "", "id"},
		{"/v1/a\\b", "", "id"}, {"/v1/guides", "", ""}, {"/v1/guides", "", `a"b`}, {"/v1/guides", "a\tb", "id"},
	}
	for _, json := range []bool{true, false} {
		for _, level := range []slog.Level{slog.LevelInfo, slog.LevelWarn} {
			var fast, slow bytes.Buffer
			fastLog := slog.New(guidepost.NewLogHandler(&fast, json, nil)).With("service", "api").WithGroup("g").With("k", "v b")
			slowLog := slog.New(guidepost.LogHandler(slog.NewJSONHandler(&slow, nil)))
			if !json {
				slowLog = slog.New(guidepost.LogHandler(slog.NewTextHandler(&slow, nil)))
			}
			slowLog = slowLog.With("service", "api").WithGroup("g").With("k", "v b")
			line := fastLog.Handler().(guidepost.LineWriter).Line(level, "request", record("", "", 0))
			if line == nil {
				t.Fatalf("json %v, %v: no template", json, level)
			}
			for _, p := range plain {
				fast.Reset()
				slow.Reset()
				if !line.Write(p.at, record(p.path, p.user, p.took), p.id) {
					t.Errorf("json %v: %+v refused", json, p)
				}
				rec := slog.NewRecord(p.at, level, "request", 0)
				rec.AddAttrs(slog.Attr{Value: slog.GroupValue(record(p.path, p.user, p.took)...)})
				slowLog.Handler().Handle(guidepost.WithRequestID(context.Background(), p.id), rec)
				if fast.String() != slow.String() {
					t.Errorf("json %v, %v:\nLine %s\nslog %s", json, level, fast.String(), slow.String())
				}
			}
			for _, q := range quoted {
				fast.Reset()
				if line.Write(at, record(q.path, q.user, 0), q.id) || fast.Len() > 0 {
					t.Errorf("json %v: %+v written as %q, not refused", json, q, fast.String())
				}
			}
			if line.Write(at, record("/v1", "", 0)[:4], "id") {
				t.Errorf("json %v: a record of another shape written", json)
			}
		}
	}
}

// A handler that rewrites attributes makes no template: its lines go
// through slog.
func TestNoLinesWhereAttributesAreRewritten(t *testing.T) {
	opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { return a }}
	h := guidepost.NewLogHandler(&bytes.Buffer{}, true, opts).(guidepost.LineWriter)
	if h.Line(slog.LevelInfo, "request", []slog.Attr{slog.String("a", "b")}) != nil {
		t.Error("a template under ReplaceAttr")
	}
}
