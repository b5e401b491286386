package media

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// deleteOrphans deletes the objects of ids that have no row, once they are
// OrphanAge old: a crash between the S3 put and the row insert leaves such an
// original. Younger ones may belong to an upload still inserting its row.
//
// Ids are UUIDv7, whose first 48 bits are the creation time in ms, so keys
// sort by time and a time window is a handful of key prefixes. A process's
// first sweep lists OrphanLookback worth of uploads; each later one only
// what aged past OrphanAge since its previous sweep (minus orphanSlack, for
// objects written a little after their id was made), so sweeping every
// minute costs a minute of uploads, not the bucket.
func (s *Service) deleteOrphans(ctx context.Context, r *SweepReport) error {
	newest := s.deps.Clock.Now().Add(-s.cfg.OrphanAge)
	oldest := newest.Add(-s.cfg.OrphanLookback)
	s.mu.Lock()
	if done := s.orphansDoneTo; done.Add(-orphanSlack).After(oldest) {
		oldest = done.Add(-orphanSlack)
	}
	s.mu.Unlock()
	batch := map[string][]string{} // id → its keys
	for _, prefix := range orphanPrefixes(oldest, newest) {
		err := s.deps.Blobs.List(ctx, prefix, func(o Object) error {
			id, born, ok := idOfKey(o.Key)
			if !ok || born.Before(oldest) || born.After(newest) || o.LastModified.After(newest) {
				return nil
			}
			batch[id] = append(batch[id], o.Key)
			if len(batch) < sweepBatch {
				return nil
			}
			return s.deleteRowless(ctx, batch, r)
		})
		if err != nil {
			return err
		}
	}
	if err := s.deleteRowless(ctx, batch, r); err != nil {
		return err
	}
	s.mu.Lock()
	s.orphansDoneTo = newest
	s.mu.Unlock()
	return s.deleteOldOrphans(ctx, r)
}

// deleteOldOrphans walks every original, at most once per OrphanFullEvery,
// and deletes those last modified before OrphanAge whose key no row has.
// The windowed pass above lists only the ids born in its window: an
// original written under an old id (a row purged while a retry was being
// copied over it, say) or under a key that is no id at all would escape
// it forever. This pass goes by the object's own time, so nothing under
// the originals' prefix stays without a row for long; it costs a listing
// of the originals (1,000 keys a request) a day.
func (s *Service) deleteOldOrphans(ctx context.Context, r *SweepReport) error {
	now := s.deps.Clock.Now()
	s.mu.Lock()
	due := s.orphansFullAt.IsZero() || !now.Before(s.orphansFullAt.Add(s.cfg.OrphanFullEvery))
	s.mu.Unlock()
	if !due {
		return nil
	}
	before := now.Add(-s.cfg.OrphanAge)
	batch := map[string][]string{}
	err := s.deps.Blobs.List(ctx, originalPrefix, func(o Object) error {
		if !o.LastModified.Before(before) {
			return nil
		}
		id := strings.TrimPrefix(o.Key, originalPrefix)
		if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
			// No row can name it: it is nobody's.
			if err := s.deps.Blobs.Delete(ctx, o.Key); err != nil {
				return err
			}
			r.Orphans++
			return nil
		}
		batch[id] = append(batch[id], o.Key)
		if len(batch) < sweepBatch {
			return nil
		}
		return s.deleteRowless(ctx, batch, r)
	})
	if err == nil {
		err = s.deleteRowless(ctx, batch, r)
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.orphansFullAt = now
	s.mu.Unlock()
	return nil
}

// orphanSlack re-lists a little of the previous window: an object's
// LastModified can trail its id's time by the length of its upload.
const orphanSlack = 10 * time.Minute

// deleteRowless deletes every key of the ids in batch that have no row, then
// empties batch.
func (s *Service) deleteRowless(ctx context.Context, batch map[string][]string, r *SweepReport) error {
	if len(batch) == 0 {
		return nil
	}
	ids := make([]string, 0, len(batch))
	for id := range batch {
		ids = append(ids, id)
	}
	exists, err := s.deps.Store.Existing(ctx, ids)
	if err != nil {
		return err
	}
	for id, keys := range batch {
		if exists[id] {
			continue
		}
		for _, key := range keys {
			if err := s.deps.Blobs.Delete(ctx, key); err != nil {
				return err
			}
		}
		r.Orphans++
	}
	clear(batch)
	return nil
}

// orphanPrefixes lists the time prefixes of [from, to] under both the
// originals' prefix and the derivatives'.
func orphanPrefixes(from, to time.Time) []string {
	return append(idPrefixes(originalPrefix, from, to), idPrefixes(keyPrefix, from, to)...)
}

// idPrefixes lists key prefixes under base that hold every UUIDv7 id made
// in [from, to]: the longest prefixes (finest time slots, 65 s at 8 hex
// digits) that need at most maxPrefixes listings.
func idPrefixes(base string, from, to time.Time) []string {
	const maxPrefixes = 64
	for digits := 8; ; digits-- {
		shift := uint(48 - 4*digits) // ms bits below the prefix
		first, last := from.UnixMilli()>>shift, to.UnixMilli()>>shift
		if last-first >= maxPrefixes && digits > 1 {
			continue
		}
		var out []string
		for slot := first; slot <= last; slot++ {
			out = append(out, fmt.Sprintf("%s%0*x", base, digits, slot))
		}
		return out
	}
}

// idOfKey reads the id out of a key made by OriginalKey and friends, with
// the time it was made; keys that are not ours are skipped.
func idOfKey(key string) (id string, born time.Time, ok bool) {
	rest, found := strings.CutPrefix(key, keyPrefix)
	if !found {
		if rest, found = strings.CutPrefix(key, originalPrefix); !found {
			return "", time.Time{}, false
		}
	}
	id, _, _ = strings.Cut(rest, "/")
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 || len(id) != 36 {
		return "", time.Time{}, false
	}
	var ms [8]byte
	copy(ms[2:], u[:6])
	return id, time.UnixMilli(int64(binary.BigEndian.Uint64(ms[:]))), true
}
