package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
)

// Internal errors are logged with the request id and shown only as a
// generic message: no driver text reaches a client.
func TestInternalErrorsAreLoggedNotShown(t *testing.T) {
	var logs bytes.Buffer
	s := New(Deps{Log: slog.New(slog.NewJSONHandler(&logs, nil)), Registry: prometheus.NewRegistry()}, Config{})
	s.engine.GET("/boom", func(c *gin.Context) {
		fail(c, errors.New(`ERROR: relation "users" does not exist (SQLSTATE 42P01)`))
	})
	s.engine.GET("/panic", func(c *gin.Context) { panic("secret state") })
	s.engine.GET("/down", func(c *gin.Context) {
		fail(c, guidepost.Wrap(guidepost.EUNAVAILABLE, errors.New("dial tcp: refused"), "try again"))
	})
	for _, path := range []string{"/boom", "/panic"} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 500 || strings.Contains(rec.Body.String(), "users") || strings.Contains(rec.Body.String(), "secret") {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		var p Problem
		json.Unmarshal(rec.Body.Bytes(), &p)
		if p.RequestID == "" || !strings.Contains(logs.String(), p.RequestID) {
			t.Fatalf("%s: request id %q not in logs %s", path, p.RequestID, logs.String())
		}
		if !loggedWith(logs.String(), "request failed", p.RequestID) {
			t.Fatalf("%s: no 'request failed' line with request id %q in %s", path, p.RequestID, logs.String())
		}
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/down", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || strings.Contains(rec.Body.String(), "dial") {
		t.Fatalf("unavailable: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

func TestEveryCodeHasAStatus(t *testing.T) {
	for _, code := range []string{guidepost.EINVALID, guidepost.EUNAUTHORIZED, guidepost.EFORBIDDEN, guidepost.ENOTFOUND,
		guidepost.ECONFLICT, guidepost.ETOOLARGE, guidepost.EUNSUPPORTED, guidepost.EUNPROCESSABLE,
		guidepost.EUNAVAILABLE, guidepost.EINTERNAL} {
		if statusOf[code] == 0 {
			t.Errorf("code %q has no HTTP status", code)
		}
	}
}

func TestLastKeyFindsTheOverflowingField(t *testing.T) {
	cases := map[string]string{
		`{"title":"aaaa`:                   "title",
		`{"a":1,"b":{"c":"d"},"title":"xx`: "title",
		`{"tags":["a","b","cc`:             "tags",
		`{"a":"b","body":"`:                "body",
		`[`:                                "",
	}
	for in, want := range cases {
		if got := lastKey([]byte(in)); got != want {
			t.Errorf("lastKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// loggedWith reports whether the JSON log holds a line msg carrying requestID.
func loggedWith(log, msg, requestID string) bool {
	for _, line := range strings.Split(log, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg && rec["request_id"] == requestID {
			return true
		}
	}
	return false
}
