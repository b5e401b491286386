package cache

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// A search the tiles cannot answer (a miss) costs what it costs with the
// cache off, and no more: the database answers it with the same one
// query, the tiles it lacked are loaded only when no miss is waiting on
// the database (quiet), and identical misses under way at once share one
// query. On a cold start at 1 M guides the database is the bottleneck
// (PostgreSQL took 1.65 of 2 cores at 200 req/s), so any database time
// the cache spends beside the misses is queueing added to every one of
// them.

// misses coalesces identical concurrent misses and tells the background
// loaders when no search is under way. It counts every search, hits too:
// a miss queues its tiles' loads before it asks the store, and a loader
// must not slip into that gap; a hit takes microseconds.
type misses struct {
	flight  singleflight.Group
	pending atomic.Int64  // searches under way
	quiet   chan struct{} // a token when pending fell to 0
}

// start counts a search under way until the function it returns is called.
func (m *misses) start() func() {
	m.pending.Add(1)
	return m.done
}

func newMisses() *misses { return &misses{quiet: make(chan struct{}, 1)} }

// shared is a miss's answer as every caller of the flight gets it.
type shared struct {
	items     []guides.Item
	truncated bool
}

// do runs read once for all the callers asking key at the same time. Each
// caller gets its own copy of the items (the service fills in per-viewer
// fields). A caller whose flight failed only because the leader's request
// ended asks again on its own.
func (m *misses) do(ctx context.Context, key string, read func(context.Context) (shared, error)) (shared, error) {
	// A caller that must see its own write (its read mark) shares only
	// with callers that must see the same.
	key += "|" + strconv.FormatUint(guidepost.ReadMark(ctx), 10)
	v, err, _ := m.flight.Do(key, func() (any, error) { return read(ctx) })
	if err != nil && ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return read(ctx)
	}
	if err != nil {
		return shared{}, err
	}
	s := v.(shared)
	s.items = slices.Clone(s.items)
	return s, nil
}

func (m *misses) done() {
	if m.pending.Add(-1) == 0 {
		select {
		case m.quiet <- struct{}{}:
		default:
		}
	}
}

// waitQuiet returns once no search is under way, or after at most
// limit (so that the cache still fills under a load that never pauses),
// or when ctx ends (false).
func (m *misses) waitQuiet(ctx context.Context, limit time.Duration) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for m.pending.Load() > 0 {
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return true
		case <-m.quiet:
		}
	}
	// Pass the token on: another loader may be waiting for it.
	select {
	case m.quiet <- struct{}{}:
	default:
	}
	return ctx.Err() == nil
}

// nearbyKey names a radius search exactly: two searches with the same key
// have the same answer.
func nearbyKey(q guides.NearbyQuery) string {
	b := make([]byte, 0, 96)
	b = append(b, 'n')
	for _, f := range []float64{q.Lat, q.Lng, q.RadiusM} {
		b = strconv.AppendFloat(append(b, '|'), f, 'g', -1, 64)
	}
	b = strconv.AppendInt(append(b, '|'), int64(q.Limit), 10)
	if q.After != nil {
		b = strconv.AppendFloat(append(b, '|'), q.After.DistanceM, 'g', -1, 64)
		b = append(append(b, '/'), q.After.ID...)
	}
	return string(appendText(b, q.Tag, q.Text))
}

// bboxKey is nearbyKey's for a viewport.
func bboxKey(q guides.BBoxQuery) string {
	b := make([]byte, 0, 128)
	b = append(b, 'b')
	for _, f := range []float64{q.BBox.MinLat, q.BBox.MinLng, q.BBox.MaxLat, q.BBox.MaxLng} {
		b = strconv.AppendFloat(append(b, '|'), f, 'g', -1, 64)
	}
	b = strconv.AppendInt(append(b, '|'), int64(q.Limit), 10)
	b = append(append(b, '|'), q.Before...)
	return string(appendText(b, q.Tag, q.Text))
}

// appendText appends the free-text parts quoted, so that no separator in
// them can make two queries one key.
func appendText(b []byte, tag, text string) []byte {
	b = strconv.AppendQuote(append(b, '|'), tag)
	return strconv.AppendQuote(append(b, '|'), text)
}
