package sql

import (
	"github.com/prometheus/client_golang/prometheus"
)

// replicaMetrics describe reads on replicas, per pool ("primary" or a
// replica's host:port).
type replicaMetrics struct {
	reads *prometheus.CounterVec // pool
	waits *prometheus.CounterVec // pool, outcome
	moved *prometheus.CounterVec // reason
}

func newReplicaMetrics(reg prometheus.Registerer, r *replicas) *replicaMetrics {
	m := &replicaMetrics{
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_db_reads_total", Help: "Reads routed, by the pool that served them.",
		}, []string{"pool"}),
		waits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_db_replica_lsn_waits_total",
			Help: "Reads that waited for a replica to replay a write they must see: caught_up, or timeout (then the primary served).",
		}, []string{"pool", "outcome"}),
		moved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "guidepost_db_reads_moved_to_primary_total",
			Help: "Reads meant for a replica that the primary served: no_replica (none healthy), behind (none replayed in time), replica_error (retried there), mark_unknown (the client's last write could not be read).",
		}, []string{"reason"}),
	}
	if reg == nil {
		return m
	}
	reg.MustRegister(m.reads, m.waits, m.moved)
	for _, rep := range r.list {
		labels := prometheus.Labels{"pool": rep.name}
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "guidepost_db_replica_lag_seconds", ConstLabels: labels,
				Help: "How long ago the primary first stood past the replica's replay position (0: caught up)."},
				func() float64 { return float64(rep.lag.Load()) / 1e9 }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "guidepost_db_replica_healthy", ConstLabels: labels,
				Help: "1 while the replica is in rotation: answering, in recovery, within DATABASE_REPLICA_MAX_LAG."},
				func() float64 {
					if rep.healthy.Load() {
						return 1
					}
					return 0
				}),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "guidepost_db_replica_pool_acquired_conns", ConstLabels: labels,
				Help: "Connections to the replica in use."},
				func() float64 { return float64(rep.pool.Stat().AcquiredConns()) }),
		)
	}
	return m
}
