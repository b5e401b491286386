package media_test

import (
	"context"
	"time"

	"github.com/guidepost/guidepost/media"
)

// gone is a deleted row: hidden from every read but Existing until purged.
type gone struct {
	m  media.Media
	at time.Time
}

func (s *fakeStore) MarkDeleted(_ context.Context, id string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.rows[id]
	if !ok {
		return notFound()
	}
	s.hide(m, now)
	return nil
}

func (s *fakeStore) hide(m media.Media, now time.Time) {
	if s.gone == nil {
		s.gone = map[string]gone{}
	}
	delete(s.rows, m.ID)
	s.gone[m.ID] = gone{m: m, at: now}
}

func (s *fakeStore) MarkOwnerDeleted(_ context.Context, owner string, now time.Time) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.rows {
		if m.OwnerID == owner {
			s.hide(m, now)
		}
	}
	var ids []string
	for id, g := range s.gone {
		if g.m.OwnerID == owner {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (s *fakeStore) Deleted(_ context.Context, before time.Time, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, g := range s.gone {
		if g.at.Before(before) && len(ids) < limit {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (s *fakeStore) Purge(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.gone, id)
	return nil
}

func (b *fakeBlobs) Copy(_ context.Context, src, dst string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return unavailable()
	}
	data, ok := b.objects[src]
	if !ok {
		return notFound()
	}
	b.objects[dst], b.born[dst] = data, b.born[src]
	return nil
}

func (q *fakeQueue) EnqueuePurge(_ context.Context, id string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.down {
		return unavailableQueue()
	}
	q.queued["purge:"+id]++
	return nil
}
