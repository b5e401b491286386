package main

import (
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/guidepost/guidepost/internal/testkit"
)

// The bench empties the photo queue between scenarios with uploads: every
// task waiting (pending, scheduled or retrying) is deleted.
func TestDiscardBacklogEmptiesTheMediaQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real Redis")
	}
	url := testkit.RedisURL(t, testkit.RedisDBLoadtest)
	t.Setenv("REDIS_URL", url)
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		t.Fatal(err)
	}
	c := asynq.NewClient(opt)
	defer c.Close()
	for i := range 4 {
		var opts []asynq.Option
		if i == 3 {
			opts = append(opts, asynq.ProcessIn(time.Hour))
		}
		if _, err := c.Enqueue(asynq.NewTask("media:derive", []byte{byte(i)}), append(opts, asynq.Queue(mediaQueue))...); err != nil {
			t.Fatal(err)
		}
	}
	n, err := discardBacklog()
	if err != nil || n != 4 {
		t.Fatalf("discarded %d, %v; want 4", n, err)
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	q, err := insp.GetQueueInfo(mediaQueue)
	if err != nil {
		t.Fatal(err)
	}
	if q.Pending+q.Scheduled+q.Retry != 0 {
		t.Errorf("queue after the discard: %+v", q)
	}
	t.Setenv("REDIS_URL", "redis-sentinel://127.0.0.1:26379/mymaster")
	if _, err := discardBacklog(); err == nil {
		t.Error("a Sentinel URL was taken for a plain one")
	}
}
