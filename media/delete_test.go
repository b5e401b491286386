package media_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

func derived(t *testing.T, e *env, name string) media.Media {
	t.Helper()
	m := accepted(t, e, name)
	if err := e.svc.Derive(context.Background(), media.DeriveTask{MediaID: m.ID}); err != nil {
		t.Fatal(err)
	}
	return m
}

// Only the owner deletes; the photo is gone for readers at once, and the
// queued purge removes every object and the row.
func TestDeleteHidesAtOnceAndPurgeRemovesEverything(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	m := derived(t, e, "photo.jpg")
	var want []string
	for _, v := range e.store.rows[m.ID].Variants {
		want = append(want, v.Key)
	}
	want = append(want, media.OriginalKey(m.ID))
	slices.Sort(want)
	if got := e.blobs.keys(); len(want) != 9 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("objects before delete: %v; want %v", got, want)
	}
	wantCode(t, e.svc.Delete(ctx, m.ID, "someone-else"), guidepost.EFORBIDDEN, "")
	if err := e.svc.Delete(ctx, m.ID, alice); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Get(ctx, m.ID, alice)
	wantCode(t, err, guidepost.ENOTFOUND, "")
	wantCode(t, e.svc.Delete(ctx, m.ID, alice), guidepost.ENOTFOUND, "")
	if e.queue.times("purge:"+m.ID) != 1 {
		t.Fatal("no purge queued")
	}
	for range 2 { // a purge that runs twice is harmless
		if err := e.svc.Purge(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if keys := e.blobs.keys(); len(keys) != 0 {
		t.Fatalf("objects left: %v", keys)
	}
	if ok, _ := e.store.Existing(ctx, []string{m.ID}); ok[m.ID] {
		t.Fatal("row left")
	}
}

// A purge lost with Redis (or a crash) is finished by the sweeper.
func TestSweeperPurgesWhatAPurgeTaskLeft(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	m := derived(t, e, "photo.png")
	e.queue.down = true
	if err := e.svc.Delete(ctx, m.ID, alice); err != nil {
		t.Fatalf("a queue outage must not fail a delete: %v", err)
	}
	e.queue.down = false
	if r, _ := e.svc.Sweep(ctx); r.Purged != 0 {
		t.Fatalf("purged before PendingAge: %+v", r)
	}
	e.clock.Add(6 * time.Minute)
	r, err := e.svc.Sweep(ctx)
	if err != nil || r.Purged != 1 || len(e.blobs.keys()) != 0 {
		t.Fatalf("%+v, %v, objects %v", r, err, e.blobs.keys())
	}
}

// Originals are apart from derivatives; old-layout originals are moved by
// MoveOriginals, which is safe to run twice, and read meanwhile.
func TestOriginalsLiveApartAndOldOnesMove(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	m := accepted(t, e, "gps.jpg")
	old := "media/" + m.ID + "/original"
	if media.OriginalKey(m.ID) != "originals/"+m.ID {
		t.Fatalf("original key %s", media.OriginalKey(m.ID))
	}
	// As the previous layout stored it.
	e.blobs.objects[old] = e.blobs.objects[media.OriginalKey(m.ID)]
	delete(e.blobs.objects, media.OriginalKey(m.ID))
	if err := e.svc.Derive(ctx, media.DeriveTask{MediaID: m.ID}); err != nil {
		t.Fatalf("derive from the old key: %v", err)
	}
	for i, want := range []int{1, 0} {
		n, err := media.MoveOriginals(ctx, e.blobs)
		if err != nil || n != want {
			t.Fatalf("run %d: moved %d, %v", i, n, err)
		}
	}
	got := e.blobs.keys()
	if n := len(e.store.rows[m.ID].Variants); len(got) != n+1 || got[n] != media.OriginalKey(m.ID) {
		t.Fatalf("objects %v: want the %d variants and the original", got, n)
	}
}

// The worker reads where the photo was taken; only the owner's view keeps
// it, with the SHA-256, the failure detail and the original's URL.
func TestCaptureAndOwnerOnlyFields(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	m := derived(t, e, "gps.png")
	v, err := e.svc.Get(ctx, m.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	c := v.Capture
	if !v.Owner || !c.HasGPS || math.Abs(c.Lat-37.566535) > 1e-5 || math.Abs(c.Lng-126.977969) > 1e-5 || c.TakenAt.IsZero() {
		t.Fatalf("owner's view: %+v", v)
	}
	for _, viewer := range []string{"", "someone-else"} {
		v, err := e.svc.Get(ctx, m.ID, viewer)
		if err != nil {
			t.Fatal(err)
		}
		if v.Owner || v.OriginalURL != "" {
			t.Fatalf("viewer %q: %+v", viewer, v)
		}
		p := media.Public(v)
		if p.SHA256 != "" || p.Capture.HasGPS || !p.Capture.TakenAt.IsZero() || p.OriginalURL != "" {
			t.Fatalf("public view keeps owner-only fields: %+v", p)
		}
	}
}
