package api

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// answerMemo keeps recent anonymous list answers (nearby, viewport) by
// their version. The guide service promises that one version is one answer
// (the promise a 304 rests on), so a hot URL gets the bytes built for its
// version the first time, as a 304 is answered from memory. Slots are
// direct-mapped: a new answer replaces whatever shared its slot, so the
// memo never holds more than memoSlots × memoMaxBody.
type answerMemo struct {
	seed       maphash.Seed
	slots      [memoSlots]atomic.Pointer[keptAnswer]
	hits, kept prometheus.Counter
}

const (
	memoSlots   = 512
	memoMaxBody = 32 << 10
)

func newAnswerMemo(reg prometheus.Registerer) *answerMemo {
	m := &answerMemo{seed: maphash.MakeSeed(),
		hits: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_answer_memo_hits_total",
			Help: "Anonymous list and cluster answers sent from the answers kept by version."}),
		kept: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_answer_memo_kept_total",
			Help: "List and cluster answers kept by version (each may replace another in its slot)."}),
	}
	reg.MustRegister(m.hits, m.kept)
	return m
}

// clusterMemo keeps clustering answers by version, as answerMemo keeps
// lists, counted in its metrics. Clusterings are few and large (a world
// map at zoom 5 is ~10,000 clusters, ~1.5 MB), so they are weighed by
// size in one bounded cache rather than given fixed slots: a hot world
// map is encoded once per version, not per request.
type clusterMemo struct {
	l1         *otter.Cache[string, *keptAnswer]
	hits, kept prometheus.Counter
}

const clusterMemoBytes = 32 << 20

func (m *answerMemo) forClusters() *clusterMemo {
	return &clusterMemo{hits: m.hits, kept: m.kept, l1: otter.Must(&otter.Options[string, *keptAnswer]{
		MaximumWeight: clusterMemoBytes,
		Weigher:       func(v string, a *keptAnswer) uint32 { return uint32(2*len(v) + len(a.body)) },
	})}
}

func (m *clusterMemo) get(version string) *keptAnswer {
	if version == "" {
		return nil
	}
	a, ok := m.l1.GetIfPresent(version)
	if ok {
		m.hits.Inc()
	}
	return a
}

func (m *clusterMemo) put(version string, body []byte) {
	if version == "" {
		return
	}
	m.l1.Set(version, newKeptAnswer(version, body))
	m.kept.Inc()
}

func (m *answerMemo) slot(version string) *atomic.Pointer[keptAnswer] {
	return &m.slots[maphash.String(m.seed, version)%memoSlots]
}

// get returns the answer of version, or nil; "" (no version) is never kept.
func (m *answerMemo) get(version string) *keptAnswer {
	if version == "" {
		return nil
	}
	if a := m.slot(version).Load(); a != nil && a.version == version {
		m.hits.Inc()
		return a
	}
	return nil
}

// put keeps a copy of body as the answer of version.
func (m *answerMemo) put(version string, body []byte) {
	if version == "" || len(body) > memoMaxBody {
		return
	}
	m.slot(version).Store(newKeptAnswer(version, append([]byte(nil), body...))) // body is pooled
	m.kept.Inc()
}
