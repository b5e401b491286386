package queue

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
)

// queueCollector reads queue sizes and latency from Redis at scrape time:
// they are shared state, so any process (API or worker) can export them and
// every one sees the same numbers. A reading is reused for queueStatsTTL,
// so scrapes, however frequent, cost Redis a few commands every few
// seconds.
type queueCollector struct {
	inspector *asynq.Inspector
	log       *slog.Logger
	queues    []string
	size      *prometheus.Desc
	latency   *prometheus.Desc

	mu     sync.Mutex
	last   []prometheus.Metric
	readAt time.Time
}

// queueStatsTTL is how long one reading of the queues serves scrapes.
const queueStatsTTL = 5 * time.Second

// RegisterMetrics exports guidepost_queue_size{queue,state} and
// guidepost_queue_latency_seconds{queue} on reg, once per registry. A
// nil log discards.
func RegisterMetrics(reg prometheus.Registerer, rdb redis.UniversalClient, log *slog.Logger) {
	c := &queueCollector{
		inspector: asynq.NewInspectorFromRedisClient(rdb),
		log:       guidepost.Logger(log),
		queues:    []string{Media},
		size: prometheus.NewDesc("guidepost_queue_size",
			"Tasks in the queue by state (pending, active, scheduled, retry, archived, completed).", []string{"queue", "state"}, nil),
		latency: prometheus.NewDesc("guidepost_queue_latency_seconds",
			"Age of the oldest pending task: how long new work waits.", []string{"queue"}, nil),
	}
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(c); err != nil && !errors.As(err, &are) {
		panic(err)
	}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.latency
}

// Collect reports zeros for a queue that was never used, and nothing when
// Redis cannot be read: a gap in the series says "unknown", a zero would lie.
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil || time.Since(c.readAt) >= queueStatsTTL {
		c.last, c.readAt = c.read(), time.Now()
	}
	for _, m := range c.last {
		ch <- m
	}
}

func (c *queueCollector) read() []prometheus.Metric {
	out := []prometheus.Metric{}
	for _, q := range c.queues {
		info, err := c.inspector.GetQueueInfo(q)
		if err != nil && !c.exists(q) {
			info, err = &asynq.QueueInfo{Queue: q}, nil
		}
		if err != nil {
			c.log.Debug("queue metrics: cannot read the queue", "queue", q, "err", err)
			continue
		}
		for state, n := range map[string]int{
			"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled,
			"retry": info.Retry, "archived": info.Archived, "completed": info.Completed,
		} {
			out = append(out, prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(n), q, state))
		}
		out = append(out, prometheus.MustNewConstMetric(c.latency, prometheus.GaugeValue, info.Latency.Seconds(), q))
	}
	return out
}

// exists tells "never used" apart from "unreadable": GetQueueInfo's
// not-found error is an internal type of asynq's.
func (c *queueCollector) exists(q string) bool {
	names, err := c.inspector.Queues()
	if err != nil {
		return true // Redis is unreadable: report nothing rather than zeros
	}
	return slices.Contains(names, q)
}
