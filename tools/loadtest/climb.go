package main

import (
	"math"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// climbPacer is a vegeta.Pacer for a stepped load planned while it runs:
// the climb doubles the rate while steps hold, then tries rates between the
// last step held and the first failed. Each planned step is a run of hits
// at a constant rate from a start time and a hit number, so every step
// holds exactly its rate × length hits; hit k of a step is due when k+½ of
// them would have been sent, so none lands on a step's edge. A hit past the
// plan waits (the climber is deciding); a finished plan stops the load.
// vegeta's PacerFunc cannot report Rate(), which reports need, hence a type.
type climbPacer struct {
	mu    sync.Mutex
	steps []plannedStep
	sent  uint64 // hits known to be fired: the first hit of a step planned next
	done  bool
}

type plannedStep struct {
	start    time.Duration // since the load began
	length   time.Duration
	rate     float64
	firstHit uint64
	hits     uint64
}

var _ vegeta.Pacer = (*climbPacer)(nil)

// climbPoll is how long a hit past the plan waits before asking again.
const climbPoll = 20 * time.Millisecond

// doublingSeries is start, 2·start, … not above maxRate.
func doublingSeries(start, maxRate float64) []float64 {
	var rates []float64
	for r := start; start > 0 && r <= maxRate*(1+1e-9); r *= 2 {
		rates = append(rates, r)
	}
	return rates
}

// plan appends a step starting at start (or when the previous one ends, if
// later) and returns its index.
func (p *climbPacer) plan(start, length time.Duration, rate float64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := p.sent
	if n := len(p.steps); n > 0 {
		last := p.steps[n-1]
		start = max(start, last.start+last.length)
		first = max(first, last.firstHit+last.hits)
	}
	p.steps = append(p.steps, plannedStep{start: start, length: length, rate: rate, firstHit: first,
		hits: uint64(math.Round(rate * length.Seconds()))})
	return len(p.steps) - 1
}

// nextStart is the start of a step wanted at want: not before the last
// planned step ends.
func (p *climbPacer) nextStart(want time.Duration) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.steps); n > 0 {
		want = max(want, p.steps[n-1].start+p.steps[n-1].length)
	}
	return want
}

// truncate drops the steps from index n on, started or not.
func (p *climbPacer) truncate(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = p.steps[:min(n, len(p.steps))]
}

// finish stops the load once every hit already planned is sent.
func (p *climbPacer) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
}

// step is planned step i (for reports).
func (p *climbPacer) step(i int) plannedStep {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.steps[i]
}

// Pace implements vegeta.Pacer: the wait before hit number hits (0-based).
func (p *climbPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.steps {
		if hits < s.firstHit || hits >= s.firstHit+s.hits {
			continue
		}
		at := s.start + time.Duration((float64(hits-s.firstHit)+0.5)/s.rate*float64(time.Second))
		if at > elapsed {
			return at - elapsed, false
		}
		p.sent = max(p.sent, hits+1) // the engine fires it now
		return 0, false
	}
	if p.done {
		return 0, true
	}
	p.sent = max(p.sent, hits)
	return climbPoll, false
}

// Rate implements vegeta.Pacer: the rate of the step running at elapsed.
func (p *climbPacer) Rate(elapsed time.Duration) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.steps {
		if elapsed >= s.start && elapsed < s.start+s.length {
			return s.rate
		}
	}
	return 0
}

// constantPacer wraps vegeta.ConstantPacer for fractional rates: Freq is an
// int, so 2.5/s is expressed as 250 hits per 100 s.
func constantPacer(rate float64) vegeta.Pacer {
	if rate == math.Trunc(rate) {
		return vegeta.ConstantPacer{Freq: int(rate), Per: time.Second}
	}
	return vegeta.ConstantPacer{Freq: int(math.Round(rate * 100)), Per: 100 * time.Second}
}
