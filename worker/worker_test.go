package worker_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
	"github.com/guidepost/guidepost/queue"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

// stack is one test's real PostgreSQL database, S3 bucket and Redis DB.
type stack struct {
	db    *gsql.DB
	blobs *objstore.S3
	rdb   *redis.Client
	reg   *prometheus.Registry
	owner string
}

func newStack(t *testing.T) *stack {
	t.Helper()
	opt, _ := redis.ParseURL(testkit.RedisURL(t, testkit.RedisDBWorker))
	s := &stack{db: testkit.DB(t), blobs: objstore.New(testkit.S3Config(t)), rdb: redis.NewClient(opt), reg: prometheus.NewRegistry()}
	t.Cleanup(func() { s.rdb.Close() })
	s.owner = uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(s.db).CreateUser(context.Background(), auth.User{ID: s.owner, DisplayName: "w", Guest: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *stack) service(q media.Queue, m *worker.Metrics, cfg media.Config) *media.Service {
	deps := media.Deps{Store: gsql.NewMedia(s.db), Keys: gsql.NewIdempotencyKeys(s.db), Blobs: s.blobs,
		Queue: q, Clock: guidepost.SystemClock{}}
	if m != nil {
		deps.Observer = m
	}
	return media.New(deps, cfg)
}

// run starts a worker process's worth of machinery until the test ends.
func (s *stack) run(t *testing.T, svc *media.Service, m *worker.Metrics, sweeper *worker.Sweeper) {
	ctx, cancel := context.WithCancel(context.Background())
	w := worker.New(worker.Deps{Redis: s.rdb, Handler: worker.NewMux(svc, m), Sweeper: sweeper, Log: slog.New(slog.DiscardHandler)},
		worker.Config{Concurrency: 1, ShutdownTimeout: 2 * time.Second})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

func upload(t *testing.T, svc *media.Service, owner, name string) media.Media {
	t.Helper()
	return uploadResult(t, svc, owner, name).Media
}

func uploadResult(t *testing.T, svc *media.Service, owner, name string) media.UploadResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "photos", name))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := svc.Spool(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	res, err := svc.Upload(context.Background(), media.UploadInput{OwnerID: owner, File: sp})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func waitStatus(t *testing.T, svc *media.Service, id string, want media.Status) media.Media {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, err := svc.Get(context.Background(), id, "")
		if err == nil && v.Status == want {
			return v.Media
		}
		if time.Now().After(deadline) {
			t.Fatalf("media %s: want %s, have %s (%v)", id, want, v.Status, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitTaskState polls until the queue reports want: the handler commits the
// row before asynq archives or completes the task, so the row's status is
// visible a moment before the task's state catches up.
func waitTaskState(t *testing.T, q *queue.Client, id string, want media.TaskState) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := q.TaskState(context.Background(), id)
		if err == nil && st == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: want state %v, have %v (%v)", id, want, st, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A task is queued once per photo however often it is enqueued, and the
// sweeper can tell a live task from a missing or dead one.
func TestQueueDedupesByMediaID(t *testing.T) {
	s := newStack(t)
	q := queue.NewClient(s.rdb)
	ctx := context.Background()
	id := uuid.NewString()
	if st, err := q.TaskState(ctx, id); err != nil || st != media.TaskMissing {
		t.Fatalf("before: %v, %v", st, err)
	}
	for range 3 {
		if err := q.Enqueue(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	insp := asynq.NewInspectorFromRedisClient(s.rdb)
	if info, _ := insp.GetQueueInfo(queue.Media); info.Pending != 1 {
		t.Fatalf("pending %d, want 1", info.Pending)
	}
	if st, _ := q.TaskState(ctx, id); st != media.TaskLive {
		t.Fatalf("queued: %v", st)
	}
	if err := insp.ArchiveTask(queue.Media, id); err != nil {
		t.Fatal(err)
	}
	if st, _ := q.TaskState(ctx, id); st != media.TaskDead {
		t.Fatalf("archived: %v", st)
	}
}

// Through real Redis, PostgreSQL and S3: a good photo becomes ready with
// both derivatives stored; a corrupt one fails once and is archived, not
// retried; the metrics count both.
func TestWorkerDerivesAndFailsPermanently(t *testing.T) {
	s := newStack(t)
	m := worker.NewMetrics(s.reg)
	queue.RegisterMetrics(s.reg, s.rdb, nil)
	svc := s.service(queue.NewClient(s.rdb), m, media.Config{})
	s.run(t, svc, m, nil)

	good := upload(t, svc, s.owner, "photo.heic")
	bad := upload(t, svc, s.owner, "corrupt.jpg")
	ready := waitStatus(t, svc, good.ID, media.StatusReady)
	failed := waitStatus(t, svc, bad.ID, media.StatusFailed)
	if ready.ThumbHash == "" || ready.Attempts != 1 || failed.Failure == "" || failed.Attempts != 1 {
		t.Fatalf("ready %+v\nfailed %+v", ready, failed)
	}
	for _, key := range []string{ready.JPEGKey(media.KindWeb), ready.JPEGKey(media.KindThumb)} {
		if _, size, err := s.blobs.Get(context.Background(), key); err != nil || size == 0 {
			t.Fatalf("%s: %d bytes, %v", key, size, err)
		}
	}
	st, _ := queue.NewClient(s.rdb).TaskState(context.Background(), bad.ID)
	if st != media.TaskDead {
		t.Fatalf("a corrupt photo's task should be archived at once, is %v", st)
	}
	if n := counterValue(t, s.reg, "guidepost_worker_tasks_failed_total", "corrupt"); n != 1 {
		t.Fatalf("failed{corrupt} = %v", n)
	}
	var stages []string
	for _, metric := range family(t, s.reg, "guidepost_media_stage_duration_seconds").GetMetric() {
		stages = append(stages, metric.GetLabel()[0].GetValue())
	}
	slices.Sort(stages)
	if got := strings.Join(stages, ","); got != "decode,download,encode,render,resize,ssim,upload" {
		t.Fatalf("stages: %s", got)
	}
	// The photo's WebPs reach their JPEGs' SSIM at their first quality.
	if n := family(t, s.reg, "guidepost_media_reencodes_total").GetMetric()[0].GetCounter().GetValue(); n != 0 {
		t.Fatalf("re-encodes: %v", n)
	}
	if n := series(t, s.reg, "guidepost_queue_size"); n != 6 {
		t.Fatalf("queue series: %d, want 6 states", n)
	}
}

// asynq keeps a finished task's id taken; enqueueing a photo whose task is
// finished (archived after it failed) replaces that task, or a retried
// photo would never run. A live task is kept.
func TestQueueReplacesAFinishedTask(t *testing.T) {
	s := newStack(t)
	q := queue.NewClient(s.rdb)
	insp := asynq.NewInspectorFromRedisClient(s.rdb)
	ctx := context.Background()
	id := uuid.NewString()
	if err := q.Enqueue(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := insp.ArchiveTask(queue.Media, id); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(ctx, id); err != nil {
		t.Fatal(err)
	}
	info, err := insp.GetQueueInfo(queue.Media)
	if err != nil || info.Pending != 1 || info.Archived != 0 {
		t.Fatalf("after enqueueing an archived task: %+v, %v", info, err)
	}
	if st, _ := q.TaskState(ctx, id); st != media.TaskLive {
		t.Fatalf("state %v, want live", st)
	}
	if err := q.Enqueue(ctx, id); err != nil {
		t.Fatal(err)
	}
	if info, _ := insp.GetQueueInfo(queue.Media); info.Pending != 1 {
		t.Fatalf("a live task was replaced or doubled: %+v", info)
	}
}

// Through real Redis, PostgreSQL and S3: a photo whose original was lost
// fails, and its owner's upload of it again answers 202 (Accepted) and
// makes it ready, through the task the queue had archived. A corrupt photo
// uploaded again answers with its failure.
func TestWorkerRetriesAFailedPhotoUploadedAgain(t *testing.T) {
	ctx := context.Background()
	s := newStack(t)
	m := worker.NewMetrics(s.reg)
	q := queue.NewClient(s.rdb)
	svc := s.service(q, m, media.Config{})
	lost := upload(t, svc, s.owner, "photo.jpg")
	bad := upload(t, svc, s.owner, "corrupt.jpg")
	if err := s.blobs.Delete(ctx, media.OriginalKey(lost.ID)); err != nil {
		t.Fatal(err)
	}
	s.run(t, svc, m, nil)
	failed := waitStatus(t, svc, lost.ID, media.StatusFailed)
	waitStatus(t, svc, bad.ID, media.StatusFailed)
	waitTaskState(t, q, bad.ID, media.TaskDead)
	if failed.FailureReason != "missing_original" {
		t.Fatalf("lost original: %+v", failed)
	}
	waitTaskState(t, q, lost.ID, media.TaskDead)

	again := uploadResult(t, svc, s.owner, "photo.jpg")
	if again.Outcome != media.Accepted || again.ID != lost.ID || again.Status != media.StatusPending || again.Failure != "" {
		t.Fatalf("upload again: %+v", again)
	}
	ready := waitStatus(t, svc, lost.ID, media.StatusReady)
	if ready.Attempts != 1 || ready.ThumbHash == "" {
		t.Fatalf("ready: %+v", ready)
	}
	for _, key := range []string{media.OriginalKey(lost.ID), ready.JPEGKey(media.KindWeb), ready.JPEGKey(media.KindThumb)} {
		if ok, err := s.blobs.Exists(ctx, key); !ok || err != nil {
			t.Fatalf("%s: %v, %v", key, ok, err)
		}
	}
	badAgain := uploadResult(t, svc, s.owner, "corrupt.jpg")
	if badAgain.Outcome != media.Duplicate || badAgain.Status != media.StatusFailed || badAgain.FailureReason != "corrupt" || badAgain.Failure == "" {
		t.Fatalf("corrupt upload again: %+v", badAgain)
	}
	if st, _ := q.TaskState(ctx, bad.ID); st != media.TaskDead {
		t.Fatalf("the corrupt photo was queued again: %v", st)
	}
}

// A photo whose enqueue failed (Redis down at upload) is found by the
// sweeper and processed; a second sweeper waiting on the lock skips.
func TestSweeperQueuesPhotosWithoutTasks(t *testing.T) {
	s := newStack(t)
	m := worker.NewMetrics(s.reg)
	lost := s.service(brokenQueue{}, m, media.Config{})
	orphaned := upload(t, lost, s.owner, "photo.webp")

	svc := s.service(queue.NewClient(s.rdb), m, media.Config{PendingAge: time.Millisecond})
	sweeper := worker.NewSweeper(worker.SweeperDeps{Lock: gsql.NewMedia(s.db), Media: svc, Metrics: m, Log: slog.New(slog.DiscardHandler)},
		worker.SweeperConfig{Interval: 100 * time.Millisecond})
	s.run(t, svc, m, sweeper)
	waitStatus(t, svc, orphaned.ID, media.StatusReady)
	if n := counterValue(t, s.reg, "guidepost_media_sweeper_repaired_total", "requeued"); n != 1 {
		t.Fatalf("requeued = %v", n)
	}
}

// A photo pending and never started whose task is archived (a failed photo
// uploaded again while Redis was down: its old task could not be replaced)
// is queued again by the sweeper, replacing the dead task, and not failed.
func TestSweeperRequeuesAnUntriedPhotoWithADeadTask(t *testing.T) {
	s := newStack(t)
	m := worker.NewMetrics(s.reg)
	svc := s.service(queue.NewClient(s.rdb), m, media.Config{PendingAge: time.Millisecond})
	untried := upload(t, svc, s.owner, "photo.png")
	if err := asynq.NewInspectorFromRedisClient(s.rdb).ArchiveTask(queue.Media, untried.ID); err != nil {
		t.Fatal(err)
	}
	sweeper := worker.NewSweeper(worker.SweeperDeps{Lock: gsql.NewMedia(s.db), Media: svc, Metrics: m, Log: slog.New(slog.DiscardHandler)},
		worker.SweeperConfig{Interval: 100 * time.Millisecond})
	s.run(t, svc, m, sweeper)
	waitStatus(t, svc, untried.ID, media.StatusReady)
}

// Against the real S3 server's prefix listing: an original without a row is
// deleted a day later, one with a row is kept.
func TestSweepDeletesOrphanOriginals(t *testing.T) {
	s := newStack(t)
	kept := upload(t, s.service(brokenQueue{}, nil, media.Config{}), s.owner, "photo.jpg")
	orphan := uuid.Must(uuid.NewV7()).String()
	if err := s.blobs.Put(context.Background(), media.OriginalKey(orphan), strings.NewReader("x"), 1, "image/jpeg", ""); err != nil {
		t.Fatal(err)
	}
	tomorrow := guidepost.ClockFunc(func() time.Time { return time.Now().Add(25 * time.Hour) })
	svc := media.New(media.Deps{Store: gsql.NewMedia(s.db), Keys: gsql.NewIdempotencyKeys(s.db), Blobs: s.blobs,
		Queue: queue.NewClient(s.rdb), Clock: tomorrow}, media.Config{})
	r, err := svc.Sweep(context.Background())
	if err != nil || r.Orphans != 1 {
		t.Fatalf("%+v, %v", r, err)
	}
	for id, want := range map[string]bool{kept.ID: true, orphan: false} {
		if ok, _ := s.blobs.Exists(context.Background(), media.OriginalKey(id)); ok != want {
			t.Errorf("%s: exists %v, want %v", id, ok, want)
		}
	}
}

type brokenQueue struct{}

func (brokenQueue) Enqueue(context.Context, string) error {
	return errors.New("redis: connection refused")
}
func (brokenQueue) TaskState(context.Context, string) (media.TaskState, error) {
	return 0, errors.New("redis: connection refused")
}
func (brokenQueue) EnqueuePurge(context.Context, string) error {
	return errors.New("redis: connection refused")
}

// counterValue reads the series of name that has a label valued label.
func counterValue(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	for _, metric := range family(t, reg, name).GetMetric() {
		for _, l := range metric.GetLabel() {
			if l.GetValue() == label {
				return metric.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no %s{…=%q}", name, label)
	return 0
}

func series(t *testing.T, reg *prometheus.Registry, name string) int {
	return len(family(t, reg, name).GetMetric())
}

func family(t *testing.T, reg *prometheus.Registry, name string) *dto.MetricFamily {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

func TestBadPayloadIsNotRetried(t *testing.T) {
	mux := worker.NewMux(nil, worker.NewMetrics(prometheus.NewRegistry()))
	err := mux.ProcessTask(context.Background(), asynq.NewTask(queue.TypeDerive, []byte("{")))
	if !errors.Is(err, asynq.SkipRetry) || !strings.Contains(err.Error(), "bad payload") {
		t.Fatalf("got %v", err)
	}
}
