package main

import (
	"strconv"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// recorder aggregates every request of a run: per request kind (vegeta
// Metrics, t-digest percentiles), in total, per second (timeline) and per
// named window (steps, the cold start's first minute). One mutex: at the
// rates a 2-core host can drive, contention is negligible next to HTTP.
type recorder struct {
	mu       sync.Mutex
	t0       time.Time
	kinds    map[string]*kindAgg
	all      kindAgg // foreground kinds only
	byStatus map[int]int
	byFail   map[failKind]int
	errs     []string
	timeline []bucket
	windows  []*window
	samples  []Sample
}

// kindAgg is one request kind. Background kinds (media polls, read-backs)
// are reported but kept out of totals, timeline and windows: they are the
// tool's bookkeeping, not the load being measured.
type kindAgg struct {
	m          vegeta.Metrics
	ok         int
	background bool
}

// bucket is one second of the timeline, by request start time.
type bucket struct {
	arrivals, dropped, requests, ok, errors, rejected int
	accepted, ready, likes                            int
	hist                                              latHist
}

// window is a named time range of the load, by request start time.
type window struct {
	name              string
	from, to          time.Duration
	m                 vegeta.Metrics
	arrivals, dropped int
	ok, rejected      int
	fails             map[failKind]int
}

const maxErrSamples = 20

func newRecorder(t0 time.Time) *recorder {
	return &recorder{
		t0:       t0,
		kinds:    map[string]*kindAgg{},
		byStatus: map[int]int{},
		byFail:   map[failKind]int{},
	}
}

// addWindow registers a window and returns its index. Requests and
// arrivals are counted in it only from then on: add it before its time.
func (r *recorder) addWindow(name string, from, to time.Duration) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.windows = append(r.windows, &window{name: name, from: from, to: to, fails: map[failKind]int{}})
	return len(r.windows) - 1
}

func (r *recorder) markBackground(kinds ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range kinds {
		r.kind(k).background = true
	}
}

func (r *recorder) kind(name string) *kindAgg {
	k := r.kinds[name]
	if k == nil {
		k = &kindAgg{}
		r.kinds[name] = k
	}
	return k
}

func (r *recorder) bucket(off time.Duration) *bucket {
	i := max(int(off/time.Second), 0)
	for len(r.timeline) <= i {
		r.timeline = append(r.timeline, bucket{})
	}
	return &r.timeline[i]
}

// record adds one finished request.
func (r *recorder) record(kind string, start time.Time, lat time.Duration, code int, fk failKind, errMsg string, in, out int64) {
	res := vegeta.Result{Code: uint16(code), Timestamp: start, Latency: lat, BytesIn: uint64(in), BytesOut: uint64(out)}
	if fk != failNone {
		// The kind, not the message: vegeta keeps every distinct error string.
		res.Error = string(fk)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kind(kind)
	k.m.Add(&res)
	if fk == failNone {
		k.ok++
	}
	if k.background {
		return
	}
	r.all.m.Add(&res)
	r.byStatus[code]++
	if fk == failNone {
		r.all.ok++
	} else {
		r.byFail[fk]++
		r.sampleErr(kind, code, errMsg)
	}
	off := start.Sub(r.t0)
	r.addToBucket(r.bucket(off), lat, code, fk)
	for _, w := range r.windows {
		if off >= w.from && off < w.to {
			w.add(&res, code, fk)
		}
	}
}

func (r *recorder) addToBucket(b *bucket, lat time.Duration, code int, fk failKind) {
	b.requests++
	b.hist.add(lat)
	if fk == failNone {
		b.ok++
	} else {
		b.errors++
	}
	if rejected(code) {
		b.rejected++
	}
}

func (w *window) add(res *vegeta.Result, code int, fk failKind) {
	w.m.Add(res)
	if fk == failNone {
		w.ok++
	} else {
		w.fails[fk]++
	}
	if rejected(code) {
		w.rejected++
	}
}

func (r *recorder) sampleErr(kind string, code int, msg string) {
	if len(r.errs) >= maxErrSamples {
		return
	}
	s := kind + ": "
	if msg == "" {
		s += "HTTP " + strconv.Itoa(code)
	} else {
		s += msg
	}
	for _, e := range r.errs {
		if e == s {
			return
		}
	}
	r.errs = append(r.errs, s)
}

// arrival counts one scheduled iteration (dropped: the generator had no
// capacity to start it, which must be visible, not silently skipped).
func (r *recorder) arrival(off time.Duration, dropped bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.bucket(off)
	b.arrivals++
	if dropped {
		b.dropped++
	}
	for _, w := range r.windows {
		if off >= w.from && off < w.to {
			w.arrivals++
			if dropped {
				w.dropped++
			}
		}
	}
}

type eventKind int

const (
	evAccepted eventKind = iota // an upload the server accepted
	evReady                     // a photo seen ready
	evLike                      // a like/unlike the server accepted
)

// event counts accepted or completed work at time at (timeline only).
func (r *recorder) event(ev eventKind, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.bucket(at.Sub(r.t0))
	switch ev {
	case evAccepted:
		b.accepted++
	case evReady:
		b.ready++
	case evLike:
		b.likes++
	}
}

func (r *recorder) addSample(s Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples = append(r.samples, s)
}
