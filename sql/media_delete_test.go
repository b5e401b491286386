package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// A deleted photo is gone for every reader at once, leaves its guides (the
// guide's cover becomes its next photo, and its tile's version moves so
// every cache reloads it), and its row is purged only once deleted.
func TestDeletedPhotoLeavesItsGuidesAndIsPurged(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	s := gsql.NewMedia(db)
	g := gsql.NewGuides(db)
	owner := newUser(t, db)
	first, second := newMedia(owner, "1"), newMedia(owner, "2")
	if err := s.Create(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, second, nil); err != nil {
		t.Fatal(err)
	}
	guideID := uuid.Must(uuid.NewV7()).String()
	err := g.CreateGuide(ctx, guides.NewGuide{ID: guideID, AuthorID: owner, Title: "t", Lat: 37.5, Lng: 127,
		MediaIDs: []string{first.ID, second.ID}, CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	version := func() (v int64) {
		if err := db.Pool.QueryRow(ctx, `SELECT version FROM guide_tiles WHERE tile = guide_tile(ST_SetSRID(ST_MakePoint(127, 37.5), 4326)::geography)`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()

	if err := s.Purge(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, first.ID); err != nil {
		t.Fatalf("purge removed a photo that was not deleted: %v", err)
	}
	if err := s.MarkDeleted(ctx, first.ID, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkDeleted(ctx, first.ID, t0); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.Get(ctx, first.ID); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("get after delete: %v", err)
	}
	got, err := g.Guide(ctx, guideID, "")
	if err != nil || len(got.Media) != 1 || got.Media[0].ID != second.ID {
		t.Fatalf("guide after delete: %+v, %v", got.Media, err)
	}
	items, err := g.Nearby(ctx, guides.NearbyQuery{Lat: 37.5, Lng: 127, RadiusM: 10, Limit: 5})
	if err != nil || len(items) != 1 || items[0].Cover.MediaID != second.ID {
		t.Fatalf("cover after delete: %+v, %v", items, err)
	}
	if after := version(); after <= before {
		t.Fatalf("tile version %d → %d: caches would keep the old cover", before, after)
	}
	// The same bytes uploaded again are a new photo.
	again := newMedia(owner, "1")
	if err := s.Create(ctx, again, nil); err != nil {
		t.Fatalf("re-upload after delete: %v", err)
	}
	deleted, err := s.Deleted(ctx, t0.Add(time.Second), 10)
	if err != nil || len(deleted) != 1 || deleted[0] != first.ID {
		t.Fatalf("deleted: %v, %v", deleted, err)
	}
	if ok, _ := s.Existing(ctx, []string{first.ID}); !ok[first.ID] {
		t.Fatal("a deleted row waiting for its purge must still count for the orphan sweep")
	}
	if err := s.Purge(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Existing(ctx, []string{first.ID}); ok[first.ID] {
		t.Fatal("row left after purge")
	}
	ids, err := s.MarkOwnerDeleted(ctx, owner, t0)
	if err != nil || len(ids) != 2 {
		t.Fatalf("owner's photos: %v, %v", ids, err)
	}
	got, _ = g.Guide(ctx, guideID, "")
	if len(got.Media) != 0 {
		t.Fatalf("guide still shows %+v", got.Media)
	}
}
