package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/queue"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

// The derive task carries the id of the request that queued it, so the
// worker's lines about a photo name the upload that caused them.
func TestWorkerLinesNameTheUploadRequest(t *testing.T) {
	s := newStack(t)
	logs := &testkit.SyncBuffer{}
	log := slog.New(guidepost.LogHandler(slog.NewJSONHandler(logs, nil)))
	svc := media.New(media.Deps{Store: gsql.NewMedia(s.db), Keys: gsql.NewIdempotencyKeys(s.db), Blobs: s.blobs,
		Queue: queue.NewClient(s.rdb), Clock: guidepost.SystemClock{}, Log: log}, media.Config{})
	s.run(t, svc, worker.NewMetrics(s.reg), nil)

	data, err := os.ReadFile(filepath.Join("..", "testdata", "photos", "corrupt.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := svc.Spool(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	ctx := guidepost.WithRequestID(context.Background(), "upload-req-7")
	res, err := svc.Upload(ctx, media.UploadInput{OwnerID: s.owner, File: sp})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, svc, res.Media.ID, media.StatusFailed)
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "media: photo failed" {
			if rec["request_id"] != "upload-req-7" || rec["media_id"] != res.Media.ID {
				t.Fatalf("the failure line does not name the upload: %s", line)
			}
			return
		}
	}
	t.Fatalf("no 'photo failed' line:\n%s", logs)
}
