package guidepost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/guidepost/guidepost"
)

func TestLogLinesCarryTheRequestIDOfTheirContext(t *testing.T) {
	var buf bytes.Buffer
	log := guidepost.Logger(slog.New(slog.NewJSONHandler(&buf, nil))).With("service", "media")
	log = guidepost.Logger(log) // wrapping again must not add the id twice
	ctx := guidepost.WithRequestID(context.Background(), "req-42")
	log.InfoContext(ctx, "in a request")
	log.Info("outside any request")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", buf.String())
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first["request_id"] != "req-42" || first["service"] != "media" || strings.Count(lines[0], "request_id") != 1 {
		t.Errorf("line logged in a request: %s", lines[0])
	}
	if strings.Contains(lines[1], "request_id") {
		t.Errorf("line logged outside a request names one: %s", lines[1])
	}
	if guidepost.RequestID(context.Background()) != "" {
		t.Error("a bare context has a request id")
	}
}
