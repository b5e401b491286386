package api

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"

	"github.com/maypok86/otter/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/guides"
)

// answerMemo keeps recent anonymous list answers (nearby, viewport) and
// tiles by their version key (guides' VersionKey). The guide service
// promises that one version is one answer (the promise a 304 rests on), so
// a hot URL gets the bytes built for its version the first time, as a 304
// is answered from memory; and the version is named once per key, not
// hashed per request. Slots are direct-mapped: a new answer replaces
// whatever shared its slot, so the memo never holds more than memoSlots ×
// memoMaxBody (an answer over it keeps only its name).
type answerMemo struct {
	seed       maphash.Seed
	slots      [memoSlots]atomic.Pointer[keptAnswer]
	copies     bool // the bytes put are pooled: keep a copy
	hits, kept prometheus.Counter
}

const (
	memoSlots   = 512
	memoMaxBody = 32 << 10
)

func newAnswerMemo(reg prometheus.Registerer) *answerMemo {
	m := &answerMemo{seed: maphash.MakeSeed(), copies: true,
		hits: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_answer_memo_hits_total",
			Help: "Anonymous list, tile and cluster answers sent from the answers kept by version."}),
		kept: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_answer_memo_kept_total",
			Help: "List, tile and cluster answers kept by version (each may replace another in its slot)."}),
	}
	reg.MustRegister(m.hits, m.kept)
	return m
}

// forTiles is a memo of its own for tiles, counted with m: a tile's bytes
// are the cache's, never changed, so it keeps them without a copy.
func (m *answerMemo) forTiles() *answerMemo {
	return &answerMemo{seed: maphash.MakeSeed(), hits: m.hits, kept: m.kept}
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

func (m *clusterMemo) get(key []byte) (string, *keptAnswer) {
	version := guides.VersionOf(key)
	a, ok := m.l1.GetIfPresent(version)
	if ok {
		m.hits.Inc()
	}
	return version, a
}

func (m *clusterMemo) put(_ []byte, version string, body []byte) {
	m.l1.Set(version, newKeptAnswer(nil, version, body))
	m.kept.Inc()
}

func (m *answerMemo) slot(key []byte) *atomic.Pointer[keptAnswer] {
	return &m.slots[maphash.Bytes(m.seed, key)%memoSlots]
}

// get names the version of key, and returns the answer kept for it (nil:
// none).
func (m *answerMemo) get(key []byte) (string, *keptAnswer) {
	a := m.slot(key).Load()
	if a == nil || !bytes.Equal(a.key, key) {
		return guides.VersionOf(key), nil
	}
	if a.body == nil {
		return a.version, nil // named, but too large to keep
	}
	m.hits.Inc()
	return a.version, a
}

// put keeps body as the answer of key (a copy when m copies); an answer
// over memoMaxBody keeps only its version's name.
func (m *answerMemo) put(key []byte, version string, body []byte) {
	switch {
	case len(body) > memoMaxBody:
		body = nil
	case m.copies || body == nil:
		body = append([]byte{}, body...) // non-nil: an empty answer is kept too
	}
	m.slot(key).Store(newKeptAnswer(bytes.Clone(key), version, body))
	m.kept.Inc()
}
