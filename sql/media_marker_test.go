package sql_test

import (
	"context"
	"testing"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
	gsql "github.com/guidepost/guidepost/sql"
)

// A render records its marker with the row. A photo made ready before
// markers (the column's default) is listed until its marker is recorded;
// deleted and unfinished photos never are.
func TestMediaWithoutMarker(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewMedia(db)
	owner := newUser(t, db)
	fresh, old, pending, gone := newMedia(owner, "a"), newMedia(owner, "b"), newMedia(owner, "c"), newMedia(owner, "d")
	for _, m := range []media.Media{fresh, old, pending, gone} {
		if err := s.Create(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(ctx, fresh.ID, "hash", photo.Capture{}, t0); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{old.ID, gone.ID} {
		if _, err := db.Pool.Exec(ctx, `UPDATE media SET status = 'ready', processed_at = $2 WHERE id = $1`, id, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MarkDeleted(ctx, gone.ID, t0); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.WithoutMarker(ctx, 10); err != nil || len(ids) != 1 || ids[0] != old.ID {
		t.Fatalf("without marker: %v, %v; want only %s", ids, err, old.ID)
	}
	if got, err := s.Get(ctx, fresh.ID); err != nil || !got.Marker {
		t.Fatalf("a render's row: %+v, %v", got, err)
	}
	for _, id := range []string{pending.ID, old.ID} {
		if err := s.MarkerStored(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.Get(ctx, pending.ID); got.Marker {
		t.Fatal("an unfinished photo got a marker")
	}
	if got, _ := s.Get(ctx, old.ID); !got.Marker || got.Status != media.StatusReady || !got.ProcessedAt.Equal(t0) {
		t.Fatalf("after MarkerStored: %+v", got)
	}
	if ids, err := s.WithoutMarker(ctx, 10); err != nil || len(ids) != 0 {
		t.Fatalf("still listed: %v, %v", ids, err)
	}
}
