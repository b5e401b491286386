package media_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
	ph "github.com/guidepost/guidepost/media/photo"
)

// In-memory stand-ins with the same contracts as the real stores (which
// sql/ and worker/ test against PostgreSQL and Redis).

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type fakeStore struct {
	mu   sync.Mutex
	rows map[string]media.Media
	// beforeCreate lets a test slip a competing row in between the
	// duplicate check and the insert.
	beforeCreate func()
	// afterCreate, when set, is the error of an insert that committed: the
	// reply was lost on its way back, as when a connection breaks.
	afterCreate func() error
	// beforeRetry lets a test slip a competing retry in.
	beforeRetry func()
	gone        map[string]gone // deleted, waiting for their purge
}

func notFound() error { return guidepost.Errorf(guidepost.ENOTFOUND, "media not found") }

func (s *fakeStore) Create(ctx context.Context, m media.Media, admit func(media.Usage) error) error {
	if s.beforeCreate != nil {
		s.beforeCreate()
	}
	if err := ctx.Err(); err != nil {
		return err // as pgx: a canceled query is not sent
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if admit != nil {
		if err := admit(s.usage(m.OwnerID)); err != nil {
			return err
		}
	}
	for _, r := range s.rows {
		if r.OwnerID == m.OwnerID && r.SHA256 == m.SHA256 {
			return guidepost.Errorf(guidepost.ECONFLICT, "media already exists")
		}
	}
	s.rows[m.ID] = m
	if s.afterCreate != nil {
		return s.afterCreate()
	}
	return nil
}

func (s *fakeStore) Usage(_ context.Context, owner, _ string, _ time.Time) (media.Usage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage(owner), nil
}

func (s *fakeStore) usage(owner string) media.Usage {
	var u media.Usage
	for _, r := range s.rows {
		if r.OwnerID == owner {
			u.Photos++
			u.Bytes += r.Bytes
		}
	}
	return u
}

func (s *fakeStore) ByOwner(_ context.Context, owner, before string, limit int) ([]media.Media, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []media.Media
	for _, r := range s.rows {
		if r.OwnerID == owner && (before == "" || r.ID < before) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out[:min(len(out), limit)], nil
}

func (s *fakeStore) GetMany(_ context.Context, ids []string) ([]media.Media, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []media.Media
	for _, id := range ids {
		if m, ok := s.rows[id]; ok {
			out = append(out, m)
		}
	}
	return out, nil
}

func (s *fakeStore) Get(_ context.Context, id string) (media.Media, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.rows[id]; ok {
		return m, nil
	}
	return media.Media{}, notFound()
}

func (s *fakeStore) BySHA256(_ context.Context, owner, sha string) (media.Media, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rows {
		if r.OwnerID == owner && r.SHA256 == sha {
			return r, nil
		}
	}
	return media.Media{}, notFound()
}

func (s *fakeStore) update(id string, fn func(*media.Media)) (media.Media, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.rows[id]
	if !ok {
		return m, notFound()
	}
	if !m.Status.Finished() {
		fn(&m)
		s.rows[id] = m
	}
	return m, nil
}

func (s *fakeStore) Start(_ context.Context, id string, now time.Time) (media.Media, error) {
	return s.update(id, func(m *media.Media) { m.Status, m.UpdatedAt = media.StatusProcessing, now; m.Attempts++ })
}

func (s *fakeStore) Finish(_ context.Context, id, hash string, c ph.Capture, now time.Time) error {
	_, err := s.update(id, func(m *media.Media) {
		m.Status, m.ThumbHash, m.ProcessedAt, m.UpdatedAt, m.Capture, m.Marker = media.StatusReady, hash, now, now, c, true
	})
	return err
}

func (s *fakeStore) MarkerStored(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.rows[id]; ok && m.Status == media.StatusReady {
		m.Marker = true
		s.rows[id] = m
	}
	return nil
}

func (s *fakeStore) VariantsStored(_ context.Context, id string, vs []media.Variant) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.rows[id]; ok {
		m.Marker, m.Variants = true, vs
		s.rows[id] = m
	}
	return nil
}

func (s *fakeStore) WithoutVariants(_ context.Context, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id, m := range s.rows {
		if m.Status == media.StatusReady && m.Variants == nil {
			out = append(out, id)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out[:min(len(out), limit)], nil
}

func (s *fakeStore) WithoutMarker(_ context.Context, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id, m := range s.rows {
		if m.Status == media.StatusReady && !m.Marker {
			out = append(out, id)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out[:min(len(out), limit)], nil
}

func (s *fakeStore) Fail(_ context.Context, id, reason, failure string, now time.Time) error {
	_, err := s.update(id, func(m *media.Media) {
		m.Status, m.FailureReason, m.Failure, m.ProcessedAt, m.UpdatedAt = media.StatusFailed, reason, failure, now, now
	})
	return err
}

func (s *fakeStore) Retry(_ context.Context, id string, now time.Time) (media.Media, error) {
	if s.beforeRetry != nil {
		s.beforeRetry()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.rows[id]
	if !ok || m.Status != media.StatusFailed {
		return media.Media{}, notFound()
	}
	m.Status, m.Attempts, m.Failure, m.FailureReason = media.StatusPending, 0, "", ""
	m.ThumbHash, m.ProcessedAt, m.UpdatedAt = "", time.Time{}, now
	s.rows[id] = m
	return m, nil
}

func (s *fakeStore) Stale(_ context.Context, before time.Time, limit int) ([]media.Media, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []media.Media
	for _, m := range s.rows {
		if !m.Status.Finished() && m.UpdatedAt.Before(before) {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.Before(out[j].UpdatedAt) })
	return out[:min(len(out), limit)], nil
}

func (s *fakeStore) Touch(_ context.Context, id string, now time.Time) error {
	_, err := s.update(id, func(m *media.Media) { m.UpdatedAt = now })
	return err
}

func (s *fakeStore) Existing(_ context.Context, ids []string) (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	for _, id := range ids {
		if _, ok := s.rows[id]; ok || s.gone[id].at != (time.Time{}) {
			out[id] = true
		}
	}
	return out, nil
}

type fakeKeys struct {
	mu   sync.Mutex
	uses map[string]media.KeyUse
}

func (k *fakeKeys) Claim(_ context.Context, u media.KeyUse, staleBefore, expiredBefore time.Time) (media.KeyUse, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	held, ok := k.uses[u.OwnerID+"/"+u.Key]
	if ok && held.At.After(expiredBefore) &&
		!(!held.Done && held.At.Before(staleBefore) && held.Fingerprint == u.Fingerprint) {
		return held, false, nil
	}
	k.uses[u.OwnerID+"/"+u.Key] = u
	return u, true, nil
}

// Complete and Release act on the caller's own claim only, known by its At.
func (k *fakeKeys) Complete(_ context.Context, u media.KeyUse) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if held, ok := k.uses[u.OwnerID+"/"+u.Key]; !ok || held.Done || !held.At.Equal(u.At) {
		return guidepost.Errorf(guidepost.ECONFLICT, "the Idempotency-Key claim was taken over")
	}
	k.uses[u.OwnerID+"/"+u.Key] = u
	return nil
}

func (k *fakeKeys) Release(_ context.Context, u media.KeyUse) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if held, ok := k.uses[u.OwnerID+"/"+u.Key]; ok && !held.Done && held.At.Equal(u.At) {
		delete(k.uses, u.OwnerID+"/"+u.Key)
	}
	return nil
}

func (k *fakeKeys) DeleteExpired(context.Context, time.Time) (int64, error) { return 0, nil }

type fakeBlobs struct {
	mu      sync.Mutex
	objects map[string][]byte
	born    map[string]time.Time
	down    bool
}

func unavailable() error {
	return guidepost.Wrap(guidepost.EUNAVAILABLE, errors.New("connection refused"), "photo storage is unavailable")
}

func (b *fakeBlobs) PutImmutable(ctx context.Context, key string, body io.ReadSeeker, size int64, ct, sha string) error {
	return b.Put(ctx, key, body, size, ct, sha)
}

func (b *fakeBlobs) Put(_ context.Context, key string, body io.ReadSeeker, size int64, _, sha string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return unavailable()
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(data); int64(len(data)) != size || hex.EncodeToString(sum[:]) != sha {
		return fmt.Errorf("fake s3: %s: size or SHA-256 does not match the body", key)
	}
	b.objects[key] = data
	b.born[key] = time.Now()
	return nil
}

func (b *fakeBlobs) Get(_ context.Context, key string) (io.ReadCloser, int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return nil, 0, unavailable()
	}
	data, ok := b.objects[key]
	if !ok {
		return nil, 0, guidepost.Errorf(guidepost.ENOTFOUND, "%s not found", key)
	}
	return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
}

func (b *fakeBlobs) Delete(_ context.Context, key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.objects, key)
	return nil
}

func (b *fakeBlobs) PresignGet(_ context.Context, key string, ttl time.Duration) (string, error) {
	return "https://s3.test/" + key + "?ttl=" + ttl.String(), nil
}

func (b *fakeBlobs) PresignGetAt(_ context.Context, key string, at time.Time, ttl time.Duration) (string, error) {
	return "https://s3.test/" + key + "?at=" + at.Format(time.RFC3339) + "&ttl=" + ttl.String(), nil
}

func (b *fakeBlobs) List(_ context.Context, prefix string, fn func(media.Object) error) error {
	b.mu.Lock()
	var objs []media.Object
	for k, data := range b.objects {
		if strings.HasPrefix(k, prefix) {
			objs = append(objs, media.Object{Key: k, Size: int64(len(data)), LastModified: b.born[k]})
		}
	}
	b.mu.Unlock()
	for _, o := range objs {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

func (b *fakeBlobs) keys() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for k := range b.objects {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type fakeQueue struct {
	mu     sync.Mutex
	queued map[string]int // id → times enqueued
	states map[string]media.TaskState
	down   bool
}

func (q *fakeQueue) Enqueue(_ context.Context, id string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.down {
		return guidepost.Wrap(guidepost.EUNAVAILABLE, errors.New("dial tcp: connection refused"), "the task queue is unavailable")
	}
	q.queued[id]++
	q.states[id] = media.TaskLive
	return nil
}

func (q *fakeQueue) TaskState(_ context.Context, id string) (media.TaskState, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.down {
		return 0, guidepost.Wrap(guidepost.EUNAVAILABLE, errors.New("dial tcp: connection refused"), "the task queue is unavailable")
	}
	return q.states[id], nil
}

func unavailableQueue() error {
	return guidepost.Wrap(guidepost.EUNAVAILABLE, errors.New("dial tcp: connection refused"), "the task queue is unavailable")
}

func (q *fakeQueue) times(id string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queued[id]
}

type env struct {
	svc   *media.Service
	store *fakeStore
	keys  *fakeKeys
	blobs *fakeBlobs
	queue *fakeQueue
	clock *clock
}

func newEnv(cfg media.Config) *env { return newEnvWith(cfg, nil) }

// newEnvWith lets a test change the deps before the service is built.
func newEnvWith(cfg media.Config, change func(*media.Deps)) *env {
	e := &env{
		store: &fakeStore{rows: map[string]media.Media{}},
		keys:  &fakeKeys{uses: map[string]media.KeyUse{}},
		blobs: &fakeBlobs{objects: map[string][]byte{}, born: map[string]time.Time{}},
		queue: &fakeQueue{queued: map[string]int{}, states: map[string]media.TaskState{}},
		clock: &clock{now: time.Now()},
	}
	deps := media.Deps{Store: e.store, Keys: e.keys, Blobs: e.blobs, Queue: e.queue, Clock: e.clock}
	if change != nil {
		change(&deps)
	}
	e.svc = media.New(deps, cfg)
	return e
}
