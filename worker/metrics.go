package worker

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/media"
)

// Metrics are the worker's task and stage measurements. It implements
// media.Observer for the per-stage durations.
type Metrics struct {
	processed *prometheus.CounterVec
	failed    *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	stages    *prometheus.HistogramVec
	reencodes prometheus.Counter
	repaired  *prometheus.CounterVec
	sweeps    *prometheus.CounterVec
	sessions  *prometheus.CounterVec
}

var _ media.Observer = (*Metrics)(nil)

// NewMetrics registers on reg. `guidepost dev` wires the API and the worker
// on one registry, so a collector registered already is reused.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	secs := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	return &Metrics{
		processed: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_worker_tasks_processed_total", Help: "Tasks handled, whatever the result.",
		}, []string{"task"})),
		failed: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_worker_tasks_failed_total", Help: "Task runs that returned an error, by reason (corrupt, unavailable, …).",
		}, []string{"task", "reason"})),
		duration: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "guidepost_worker_task_duration_seconds", Help: "Time to handle one task.", Buckets: secs,
		}, []string{"task"})),
		stages: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "guidepost_media_stage_duration_seconds", Help: "Time per derive stage: download, render (decode + resize + encode + ssim), upload.", Buckets: secs,
		}, []string{"stage"})),
		reencodes: register(reg, prometheus.NewCounter(prometheus.CounterOpts{
			Name: "guidepost_media_reencodes_total", Help: "WebPs and AVIFs encoded again at a higher quality to reach their JPEG's SSIM.",
		})),
		repaired: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_media_sweeper_repaired_total", Help: "What the sweeper repaired: requeued, failed, orphans, keys_expired, uploads_aborted, markers_queued.",
		}, []string{"kind"})),
		sweeps: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_media_sweeps_total", Help: "Sweeper runs: ok, error, or skipped (another process held the lock).",
		}, []string{"result"})),
		sessions: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_session_sweep_deleted_total", Help: "Rows the session sweep deleted: refresh_tokens (used, past their retention), sessions (ended or revoked), guests (idle, owning nothing).",
		}, []string{"kind"})),
	}
}

func (m *Metrics) sessionsSwept(r auth.SweepReport) {
	m.sessions.WithLabelValues("refresh_tokens").Add(float64(r.Tokens))
	m.sessions.WithLabelValues("sessions").Add(float64(r.Sessions))
	m.sessions.WithLabelValues("guests").Add(float64(r.Guests))
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(c); errors.As(err, &are) {
		return are.ExistingCollector.(C)
	} else if err != nil {
		panic(err)
	}
	return c
}

// ObserveStage records one derive stage.
func (m *Metrics) ObserveStage(stage string, d time.Duration) {
	m.stages.WithLabelValues(stage).Observe(d.Seconds())
}

// ObserveReencodes counts one render's encodes redone.
func (m *Metrics) ObserveReencodes(n int) { m.reencodes.Add(float64(n)) }

// taskDone counts a task run; reason is "" on success.
func (m *Metrics) taskDone(task, reason string, start time.Time) {
	m.processed.WithLabelValues(task).Inc()
	m.duration.WithLabelValues(task).Observe(time.Since(start).Seconds())
	if reason != "" {
		m.failed.WithLabelValues(task, reason).Inc()
	}
}

func (m *Metrics) swept(r media.SweepReport, ran bool, err error) {
	switch {
	case !ran && err == nil:
		m.sweeps.WithLabelValues("skipped").Inc()
		return
	case err != nil:
		m.sweeps.WithLabelValues("error").Inc()
	default:
		m.sweeps.WithLabelValues("ok").Inc()
	}
	m.repaired.WithLabelValues("requeued").Add(float64(r.Requeued))
	m.repaired.WithLabelValues("failed").Add(float64(r.Failed))
	m.repaired.WithLabelValues("orphans").Add(float64(r.Orphans))
	m.repaired.WithLabelValues("keys_expired").Add(float64(r.KeysExpired))
	m.repaired.WithLabelValues("uploads_aborted").Add(float64(r.UploadsAborted))
	m.repaired.WithLabelValues("markers_queued").Add(float64(r.Markers))
}
