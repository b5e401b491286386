package sql_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func newUser(t *testing.T, db *gsql.DB) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(db).CreateUser(context.Background(), auth.User{ID: id, DisplayName: "u", Guest: true, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	return id
}

func newMedia(owner, sha string) media.Media {
	return media.Media{
		ID: uuid.Must(uuid.NewV7()).String(), OwnerID: owner, Status: media.StatusPending,
		ContentType: "image/jpeg", Bytes: 1234, Width: 640, Height: 480,
		SHA256: strings.Repeat(sha, 64/len(sha)), CreatedAt: t0, UpdatedAt: t0,
	}
}

func TestMediaRowsAreUniquePerOwnerAndBytes(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewMedia(db)
	alice, bob := newUser(t, db), newUser(t, db)
	m := newMedia(alice, "a")
	if err := s.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, newMedia(alice, "a")); guidepost.ErrorCode(err) != guidepost.ECONFLICT {
		t.Fatalf("same owner, same bytes: want ECONFLICT, got %v", err)
	}
	if err := s.Create(ctx, newMedia(bob, "a")); err != nil {
		t.Fatalf("another owner, same bytes: %v", err)
	}
	got, err := s.BySHA256(ctx, alice, m.SHA256)
	if err != nil || got.ID != m.ID || got.Width != 640 || !got.CreatedAt.Equal(t0) || !got.ProcessedAt.IsZero() {
		t.Fatalf("BySHA256: %+v, %v", got, err)
	}
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		if _, err := s.Get(ctx, id); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
			t.Errorf("Get(%q): want ENOTFOUND, got %v", id, err)
		}
	}
}

// A finished row never changes again: a task that runs twice cannot move a
// photo back to processing or overwrite its first result.
func TestMediaLifecycleIsOneWay(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewMedia(db)
	m := newMedia(newUser(t, db), "b")
	s.Create(ctx, m)
	for i := 1; i <= 2; i++ {
		got, err := s.Start(ctx, m.ID, t0.Add(time.Minute))
		if err != nil || got.Status != media.StatusProcessing || got.Attempts != i {
			t.Fatalf("start %d: %+v, %v", i, got, err)
		}
	}
	if err := s.Finish(ctx, m.ID, "hash", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	s.Finish(ctx, m.ID, "other", t0.Add(3*time.Minute))
	s.Fail(ctx, m.ID, "nope", t0.Add(3*time.Minute))
	got, err := s.Start(ctx, m.ID, t0.Add(4*time.Minute))
	if err != nil || got.Status != media.StatusReady || got.Attempts != 2 || got.ThumbHash != "hash" ||
		got.Failure != "" || !got.ProcessedAt.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("after finish: %+v, %v", got, err)
	}
	if _, err := s.Start(ctx, uuid.NewString(), t0); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("start of a missing row: %v", err)
	}
}

func TestMediaStaleTouchAndExisting(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewMedia(db)
	owner := newUser(t, db)
	old, fresh, done := newMedia(owner, "1"), newMedia(owner, "2"), newMedia(owner, "3")
	fresh.UpdatedAt = t0.Add(time.Hour)
	for _, m := range []media.Media{old, fresh, done} {
		s.Create(ctx, m)
	}
	s.Finish(ctx, done.ID, "", t0)
	stale, err := s.Stale(ctx, t0.Add(time.Minute), 10)
	if err != nil || len(stale) != 1 || stale[0].ID != old.ID {
		t.Fatalf("stale: %+v, %v", stale, err)
	}
	s.Touch(ctx, old.ID, t0.Add(2*time.Hour))
	if stale, _ := s.Stale(ctx, t0.Add(time.Minute), 10); len(stale) != 0 {
		t.Fatalf("a touched row is still stale: %+v", stale)
	}
	exists, err := s.Existing(ctx, []string{old.ID, uuid.NewString(), "junk"})
	if err != nil || !exists[old.ID] || len(exists) != 1 {
		t.Fatalf("existing: %v, %v", exists, err)
	}
}

// One sweeper at a time: a second caller is told at once that it did not
// run, and the lock is free again afterwards.
func TestSweepLockIsExclusive(t *testing.T) {
	ctx := context.Background()
	s := gsql.NewMedia(testkit.DB(t))
	inside, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		ran, err := s.Exclusively(ctx, func(context.Context) error {
			close(inside)
			<-release
			return nil
		})
		if !ran || err != nil {
			t.Errorf("first: ran %v, %v", ran, err)
		}
	})
	<-inside
	ran, err := s.Exclusively(ctx, func(context.Context) error { t.Error("ran while locked"); return nil })
	if ran || err != nil {
		t.Fatalf("second while held: ran %v, %v", ran, err)
	}
	close(release)
	wg.Wait()
	if ran, err := s.Exclusively(ctx, func(context.Context) error { return nil }); !ran || err != nil {
		t.Fatalf("after release: ran %v, %v", ran, err)
	}
}

func TestIdempotencyKeyClaims(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	keys := gsql.NewIdempotencyKeys(db)
	owner := newUser(t, db)
	use := media.KeyUse{OwnerID: owner, Scope: "POST /v1/media", Key: "k1", Fingerprint: "f1", At: t0}
	claim := func(u media.KeyUse, now time.Time) (media.KeyUse, bool) {
		t.Helper()
		held, claimed, err := keys.Claim(ctx, u, now.Add(-time.Minute), now.Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return held, claimed
	}
	if _, ok := claim(use, t0); !ok {
		t.Fatal("first claim refused")
	}
	if held, ok := claim(use, t0.Add(time.Second)); ok || held.Done || held.Fingerprint != "f1" {
		t.Fatalf("repeat in flight: claimed %v, %+v", ok, held)
	}
	other := use
	other.Fingerprint = "f2"
	if _, ok := claim(other, t0.Add(2*time.Minute)); ok {
		t.Fatal("an abandoned key was taken over by another body")
	}
	if _, ok := claim(use, t0.Add(2*time.Minute)); !ok {
		t.Fatal("an abandoned key was not taken over by the same body")
	}
	done := use
	done.Done, done.Outcome, done.ResourceID = true, media.Accepted, uuid.NewString()
	if err := keys.Complete(ctx, done); err != nil {
		t.Fatal(err)
	}
	keys.Release(ctx, use) // must not forget a finished use
	held, ok := claim(use, t0.Add(3*time.Hour))
	if ok || !held.Done || held.Outcome != media.Accepted || held.ResourceID != done.ResourceID {
		t.Fatalf("after complete: claimed %v, %+v", ok, held)
	}
	if _, ok := claim(other, t0.Add(25*time.Hour)); !ok {
		t.Fatal("an expired key was not reusable")
	}
	if n, err := keys.DeleteExpired(ctx, t0.Add(26*time.Hour)); err != nil || n != 1 {
		t.Fatalf("delete expired: %d, %v", n, err)
	}
}
