package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
	"github.com/guidepost/guidepost/queue"
	gsql "github.com/guidepost/guidepost/sql"
)

// A service logs through the logger it was given, with the request's
// context, and the line names the request that caused it: here the media
// service, retrying a failed photo uploaded again, logs with the id the
// API answered in X-Request-ID. All parts are the real ones main wires.
func TestServiceLogLinesCarryTheRequestID(t *testing.T) {
	logs := &testkit.SyncBuffer{}
	log := slog.New(guidepost.LogHandler(slog.NewJSONHandler(logs, nil)))
	db := testkit.DB(t)
	opt, _ := redis.ParseURL(testkit.RedisURL(t, testkit.RedisDBAPI))
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	clock := guidepost.SystemClock{}
	mediaSvc := media.New(media.Deps{
		Store: gsql.NewMedia(db), Keys: gsql.NewIdempotencyKeys(db), Blobs: objstore.New(testkit.S3Config(t)),
		Queue: queue.NewClient(rdb), Clock: clock, Log: log.With("service", "media"),
	}, media.Config{})
	authSvc := auth.New(auth.Deps{Store: gsql.NewUsers(db), Tokens: auth.NewTokens(strings.Repeat("k", 32), time.Hour, clock), Clock: clock}, auth.Config{Sessions: auth.DefaultConfig().Sessions})
	s := api.New(api.Deps{Log: log.With("service", "api"), Registry: prometheus.NewRegistry(), Auth: authSvc, Media: mediaSvc}, api.Config{})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)

	resp, err := http.Post(srv.URL+"/v1/auth/guest", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	photo, err := os.ReadFile("../testdata/photos/gps.jpg")
	if err != nil {
		t.Fatal(err)
	}
	upload := func() (id, requestID string) {
		t.Helper()
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "gps.jpg")
		fw.Write(photo)
		mw.Close()
		req, _ := http.NewRequest("POST", srv.URL+"/v1/media", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct {
			ID string `json:"id"`
		}
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusAccepted || json.Unmarshal(raw, &m) != nil {
			t.Fatalf("upload: %d %s", resp.StatusCode, raw)
		}
		return m.ID, resp.Header.Get("X-Request-ID")
	}

	id, first := upload()
	// The worker gave up during an outage: a re-upload retries the photo.
	if err := gsql.NewMedia(db).Fail(context.Background(), id, "gave_up", "upload it again", time.Now()); err != nil {
		t.Fatal(err)
	}
	again, second := upload()
	if again != id || first == second {
		t.Fatalf("re-upload: id %s (first %s), request ids %q and %q", again, id, first, second)
	}
	var retried map[string]any
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && strings.Contains(rec["msg"].(string), "retrying it") {
			retried = rec
		}
	}
	if retried == nil {
		t.Fatalf("the media service logged no retry:\n%s", logs.String())
	}
	if retried["request_id"] != second || retried["service"] != "media" || retried["media_id"] != id {
		t.Errorf("retry line %v does not name request %s", retried, second)
	}
}
