package guidepost

import (
	"context"
	"sync"
)

// A read mark is how far a client's reads must see: the database's write
// position (a PostgreSQL LSN) right after that client's last write. Reads
// served by a replica wait until it has replayed that far, or go to the
// primary, so a client always sees its own writes. The API puts one in a
// signed-in request's context; the store raises it after each write.
type readMark struct {
	mu   sync.Mutex
	at   uint64
	save func(at uint64) // keeps it for the client's next requests
}

const readMarkKey ctxKey = iota + 100

// WithReadMark returns ctx whose reads must see position at, and whose
// writes are reported to save (called before the write's method returns,
// so before the client has its answer).
func WithReadMark(ctx context.Context, at uint64, save func(at uint64)) context.Context {
	return context.WithValue(ctx, readMarkKey, &readMark{at: at, save: save})
}

// FollowsWrites tells whether ctx carries a read mark: a store then reports
// each write's position with Wrote.
func FollowsWrites(ctx context.Context) bool {
	_, ok := ctx.Value(readMarkKey).(*readMark)
	return ok
}

// ReadMark is the position ctx's reads must see (0: anything).
func ReadMark(ctx context.Context) uint64 {
	m, ok := ctx.Value(readMarkKey).(*readMark)
	if !ok {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.at
}

// Wrote records that a write made for ctx's client committed before
// position at: the rest of the request, and the client's next requests,
// read at least that far.
func Wrote(ctx context.Context, at uint64) {
	m, ok := ctx.Value(readMarkKey).(*readMark)
	if !ok {
		return
	}
	m.mu.Lock()
	raised := at > m.at
	if raised {
		m.at = at
	}
	m.mu.Unlock()
	if raised && m.save != nil {
		m.save(at)
	}
}
