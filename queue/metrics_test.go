package queue_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/queue"
)

// countCommands counts the commands a client sends to Redis.
type countCommands struct{ n *atomic.Int64 }

func (c countCommands) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c countCommands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}
func (c countCommands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(int64(len(cmds))); return next(ctx, cmds) }
}

// Scrapes in quick succession share one reading of the queues: a flood of
// /metrics hits does not become a flood of Redis commands.
func TestQueueMetricsAreReadOncePerInterval(t *testing.T) {
	opt, _ := redis.ParseURL(testkit.RedisURL(t, testkit.RedisDBQueue))
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	var n atomic.Int64
	rdb.AddHook(countCommands{&n})
	reg := prometheus.NewRegistry()
	queue.RegisterMetrics(reg, rdb, nil)
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
	first := n.Load()
	if first == 0 {
		t.Fatal("the first scrape read nothing from Redis")
	}
	for range 50 {
		fams, err := reg.Gather()
		if err != nil || len(fams) != 2 {
			t.Fatalf("%d families, %v", len(fams), err)
		}
	}
	if more := n.Load() - first; more != 0 {
		t.Fatalf("50 more scrapes sent %d more commands", more)
	}
}
