package main

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Sample is one scrape of the server plus the generator's own state.
type Sample struct {
	T          float64            `json:"t"`                     // seconds since load start
	QueueDepth float64            `json:"queue_depth,omitempty"` // media jobs not done
	Queue      map[string]float64 `json:"queue,omitempty"`
	CPUSeconds float64            `json:"server_cpu_s,omitempty"` // since load start
	VUs        int64              `json:"vus,omitempty"`
	InFlight   int64              `json:"in_flight,omitempty"`
}

// sampler scrapes /metrics every second: queue depth over time and the
// server's CPU seconds (process_cpu_seconds_total deltas).
type sampler struct {
	hc   *http.Client
	base string
	rec  *recorder
	eng  *engine

	mu       sync.Mutex
	cpu0     float64
	cpuLast  float64
	hasCPU   bool
	hasQueue bool
	maxDepth float64
	depth    float64 // last scraped
	maxState map[string]float64
	scrapes  int
	failures int
}

func newSampler(hc *http.Client, base string, rec *recorder, eng *engine) *sampler {
	return &sampler{hc: hc, base: base, rec: rec, eng: eng, maxState: map[string]float64{}}
}

// start takes the baseline scrape (CPU, and the backlog the load starts
// with); call it right before the load.
func (s *sampler) start(ctx context.Context) {
	if snap, err := scrapeMetrics(ctx, s.hc, s.base); err == nil {
		s.mu.Lock()
		s.cpu0, s.cpuLast, s.hasCPU = snap.cpu, snap.cpu, snap.hasCPU
		if snap.hasQueue {
			s.depth, s.hasQueue = snap.depth(), true
		}
		s.mu.Unlock()
	}
}

// run samples every second until the returned stop is called. stop cancels
// the loop and waits until it has returned: a scrape still in flight would
// otherwise write a sample while the summary reads the recorder.
func (s *sampler) run(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.loop(ctx)
	}()
	return func() {
		cancel()
		<-stopped
	}
}

// loop samples every second until ctx ends.
func (s *sampler) loop(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sampleOnce(ctx)
		}
	}
}

// sampleOnce scrapes now and returns the server CPU seconds since start.
func (s *sampler) sampleOnce(ctx context.Context) float64 {
	snap, err := scrapeMetrics(ctx, s.hc, s.base)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scrapes++
	smp := Sample{T: time.Since(s.rec.t0).Seconds(), VUs: s.eng.active.Load(), InFlight: s.eng.inflight.Load()}
	if err != nil {
		s.failures++
		s.rec.addSample(smp)
		return s.cpuLast - s.cpu0
	}
	if snap.hasCPU {
		if !s.hasCPU { // first successful read: the baseline
			s.cpu0, s.hasCPU = snap.cpu, true
		}
		s.cpuLast = snap.cpu
		smp.CPUSeconds = snap.cpu - s.cpu0
	}
	if snap.hasQueue {
		s.hasQueue = true
		smp.Queue, smp.QueueDepth = snap.queue, snap.depth()
		s.depth = smp.QueueDepth
		s.maxDepth = max(s.maxDepth, smp.QueueDepth)
		for k, v := range snap.queue {
			s.maxState[k] = max(s.maxState[k], v)
		}
	}
	s.rec.addSample(smp)
	return s.cpuLast - s.cpu0
}

// queueDepth is the last scraped media backlog, if /metrics reports it.
func (s *sampler) queueDepth() (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.depth, s.hasQueue
}
