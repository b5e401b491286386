package api

import (
	"hash/maphash"
	"sync/atomic"

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
	slots      [memoSlots]atomic.Pointer[memoAnswer]
	hits, kept prometheus.Counter
}

const (
	memoSlots   = 512
	memoMaxBody = 32 << 10
)

type memoAnswer struct {
	version string
	body    []byte
}

func newAnswerMemo(reg prometheus.Registerer) *answerMemo {
	m := &answerMemo{seed: maphash.MakeSeed(),
		hits: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_answer_memo_hits_total",
			Help: "Anonymous list answers sent from the answers kept by version."}),
		kept: prometheus.NewCounter(prometheus.CounterOpts{Name: "guidepost_answer_memo_kept_total",
			Help: "List answers kept by version (each may replace another in its slot)."}),
	}
	reg.MustRegister(m.hits, m.kept)
	return m
}

func (m *answerMemo) slot(version string) *atomic.Pointer[memoAnswer] {
	return &m.slots[maphash.String(m.seed, version)%memoSlots]
}

// get returns the answer of version, or nil; "" (no version) is never kept.
func (m *answerMemo) get(version string) []byte {
	if version == "" {
		return nil
	}
	if a := m.slot(version).Load(); a != nil && a.version == version {
		m.hits.Inc()
		return a.body
	}
	return nil
}

// put keeps a copy of body as the answer of version.
func (m *answerMemo) put(version string, body []byte) {
	if version == "" || len(body) > memoMaxBody {
		return
	}
	m.slot(version).Store(&memoAnswer{version: version, body: append([]byte(nil), body...)})
	m.kept.Inc()
}
