package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/queue"
	"github.com/guidepost/guidepost/worker"
)

// A task that fails for now is logged at warn with its id and the error:
// asynq says so only at debug, and the task then waits its backoff in
// silence.
func TestWorkerLogsATaskThatFailsForNow(t *testing.T) {
	s := newStack(t)
	logs := &testkit.SyncBuffer{}
	mux := asynq.NewServeMux()
	mux.HandleFunc(queue.TypeDerive, func(context.Context, *asynq.Task) error {
		return errors.New("s3: no response headers in 30s")
	})
	ctx, cancel := context.WithCancel(context.Background())
	w := worker.New(worker.Deps{Redis: s.rdb, Handler: mux, Log: slog.New(slog.NewJSONHandler(logs, nil))},
		worker.Config{Concurrency: 1, ShutdownTimeout: 2 * time.Second})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	id := uuid.Must(uuid.NewV7()).String()
	q := queue.NewClient(s.rdb)
	if err := q.Enqueue(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { asynq.NewInspectorFromRedisClient(s.rdb).DeleteTask(queue.Media, id) })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, line := range strings.Split(logs.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) != nil || rec["task_id"] != id {
				continue
			}
			if rec["level"] != "WARN" || rec["type"] != queue.TypeDerive || !strings.Contains(rec["err"].(string), "no response headers") ||
				rec["retried"] != float64(0) {
				t.Fatalf("failed task logged as %s", line)
			}
			return
		}
	}
	t.Fatalf("no line names the failed task:\n%s", logs)
}
