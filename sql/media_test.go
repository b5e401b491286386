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
	"github.com/guidepost/guidepost/media/photo"
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
	if err := s.Create(ctx, m, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, newMedia(alice, "a"), nil); guidepost.ErrorCode(err) != guidepost.ECONFLICT {
		t.Fatalf("same owner, same bytes: want ECONFLICT, got %v", err)
	}
	if err := s.Create(ctx, newMedia(bob, "a"), nil); err != nil {
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
	s.Create(ctx, m, nil)
	for i := 1; i <= 2; i++ {
		got, err := s.Start(ctx, m.ID, t0.Add(time.Minute))
		if err != nil || got.Status != media.StatusProcessing || got.Attempts != i {
			t.Fatalf("start %d: %+v, %v", i, got, err)
		}
	}
	taken := time.Date(2026, 5, 1, 9, 30, 15, 0, time.FixedZone("", 9*3600))
	capture := photo.Capture{TakenAt: taken, HasGPS: true, Lat: 37.566535, Lng: 126.977969}
	if err := s.Finish(ctx, m.ID, "hash", capture, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	s.Finish(ctx, m.ID, "other", photo.Capture{}, t0.Add(3*time.Minute))
	s.Fail(ctx, m.ID, "corrupt", "nope", t0.Add(3*time.Minute))
	got, err := s.Start(ctx, m.ID, t0.Add(4*time.Minute))
	if err != nil || got.Status != media.StatusReady || got.Attempts != 2 || got.ThumbHash != "hash" ||
		got.Failure != "" || !got.ProcessedAt.Equal(t0.Add(2*time.Minute)) ||
		!got.Capture.TakenAt.Equal(taken) || got.Capture.Lat != capture.Lat || got.Capture.Lng != capture.Lng || !got.Capture.HasGPS {
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
		s.Create(ctx, m, nil)
	}
	s.Finish(ctx, done.ID, "", photo.Capture{}, t0)
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
	done.Done, done.Outcome, done.ResourceID = true, string(media.Accepted), uuid.NewString()
	if err := keys.Complete(ctx, done); err != nil {
		t.Fatal(err)
	}
	keys.Release(ctx, use) // must not forget a finished use
	held, ok := claim(use, t0.Add(3*time.Hour))
	if ok || !held.Done || held.Outcome != string(media.Accepted) || held.ResourceID != done.ResourceID {
		t.Fatalf("after complete: claimed %v, %+v", ok, held)
	}
	if _, ok := claim(other, t0.Add(25*time.Hour)); !ok {
		t.Fatal("an expired key was not reusable")
	}
	if n, err := keys.DeleteExpired(ctx, t0.Add(26*time.Hour)); err != nil || n != 1 {
		t.Fatalf("delete expired: %d, %v", n, err)
	}
}

// Retry starts a failed photo afresh, and only a failed one: of two uploads
// retrying it at once exactly one resets it.
func TestMediaRetryResetsOnlyAFailedRow(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewMedia(db)
	m := newMedia(newUser(t, db), "c")
	s.Create(ctx, m, nil)
	if _, err := s.Retry(ctx, m.ID, t0); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("retry of a pending row: %v", err)
	}
	s.Start(ctx, m.ID, t0.Add(time.Minute))
	if err := s.Fail(ctx, m.ID, "gave_up", "We could not process this photo.", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	failed, _ := s.Get(ctx, m.ID)
	if failed.Status != media.StatusFailed || failed.FailureReason != "gave_up" || failed.Failure == "" || failed.Attempts != 1 {
		t.Fatalf("failed: %+v", failed)
	}
	var wg sync.WaitGroup
	results := make(chan error, 4)
	for range cap(results) {
		wg.Go(func() {
			got, err := s.Retry(ctx, m.ID, t0.Add(3*time.Minute))
			if err == nil && (got.Status != media.StatusPending || got.Attempts != 0 || got.Failure != "" ||
				got.FailureReason != "" || !got.ProcessedAt.IsZero() || !got.UpdatedAt.Equal(t0.Add(3*time.Minute))) {
				t.Errorf("retried: %+v", got)
			}
			results <- err
		})
	}
	wg.Wait()
	close(results)
	var reset int
	for err := range results {
		switch guidepost.ErrorCode(err) {
		case "":
			reset++
		case guidepost.ENOTFOUND:
		default:
			t.Fatal(err)
		}
	}
	if reset != 1 {
		t.Fatalf("%d of 4 concurrent retries reset the row, want 1", reset)
	}
	if got, _ := s.Stale(ctx, t0.Add(4*time.Minute), 10); len(got) != 1 || got[0].ID != m.ID {
		t.Fatalf("a retried photo is unfinished work for the sweeper: %+v", got)
	}
}

// A request that outlives the lease loses its key to a repeat of the same
// body. The stale request failing must not free the new claim (a third
// request would then run the upload again beside the second), nor may its
// answer replace the new one's.
func TestIdempotencyKeyStaleClaimCannotTouchItsSuccessor(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	keys := gsql.NewIdempotencyKeys(db)
	owner := newUser(t, db)
	stale := media.KeyUse{OwnerID: owner, Scope: "POST /v1/media", Key: "k", Fingerprint: "f", At: t0}
	fresh := stale
	fresh.At = t0.Add(2*time.Minute + 123456*time.Nanosecond) // PostgreSQL keeps microseconds
	for _, u := range []media.KeyUse{stale, fresh} {
		if _, ok, err := keys.Claim(ctx, u, u.At.Add(-time.Minute), u.At.Add(-24*time.Hour)); err != nil || !ok {
			t.Fatalf("claim at %s: %v, %v", u.At, ok, err)
		}
	}
	inFlight := func(want time.Time) {
		t.Helper()
		now := fresh.At.Add(time.Second)
		held, ok, err := keys.Claim(ctx, stale, now.Add(-time.Minute), now.Add(-24*time.Hour))
		if err != nil || ok || held.Done || !held.At.Equal(want.Truncate(time.Microsecond)) {
			t.Fatalf("want the claim of %s in flight, got claimed %v, %+v, %v", want, ok, held, err)
		}
	}
	if err := keys.Release(ctx, stale); err != nil {
		t.Fatal(err)
	}
	inFlight(fresh.At)
	done := stale
	done.Done, done.Outcome, done.ResourceID = true, string(media.Duplicate), uuid.NewString()
	if err := keys.Complete(ctx, done); guidepost.ErrorCode(err) != guidepost.ECONFLICT {
		t.Fatalf("the stale request completing: want ECONFLICT, got %v", err)
	}
	inFlight(fresh.At)
	done = fresh
	done.Done, done.Outcome, done.ResourceID = true, string(media.Accepted), uuid.NewString()
	if err := keys.Complete(ctx, done); err != nil {
		t.Fatalf("the fresh request completing: %v", err)
	}
	held, ok, err := keys.Claim(ctx, stale, fresh.At, fresh.At.Add(-24*time.Hour))
	if err != nil || ok || !held.Done || held.Outcome != string(media.Accepted) || held.ResourceID != done.ResourceID {
		t.Fatalf("after the fresh request: claimed %v, %+v, %v", ok, held, err)
	}
	if err := keys.Release(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if held, _, _ := keys.Claim(ctx, stale, fresh.At, fresh.At.Add(-24*time.Hour)); !held.Done {
		t.Fatal("Release forgot a finished use")
	}
}

func TestMediaUsageCountsOneOwnersRows(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewMedia(db)
	alice, bob := newUser(t, db), newUser(t, db)
	for _, sha := range []string{"a", "b", "c"} {
		if err := s.Create(ctx, newMedia(alice, sha), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Create(ctx, newMedia(bob, "a"), nil); err != nil {
		t.Fatal(err)
	}
	if u, err := s.Usage(ctx, alice, "", time.Now()); err != nil || u != (media.Usage{Photos: 3, Bytes: 3 * 1234}) {
		t.Fatalf("alice: %+v %v", u, err)
	}
	if u, err := s.Usage(ctx, newUser(t, db), "", time.Now()); err != nil || u != (media.Usage{}) {
		t.Fatalf("nobody's: %+v %v", u, err)
	}
}
