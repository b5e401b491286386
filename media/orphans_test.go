package media_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/media"
)

// The orphan sweep goes by each original's last-modified time too: an
// original with no row, older than OrphanAge, is deleted even under an id
// born long before the sweep's window, or under a key that is no id; an
// original with a row stays. (On the real S3 server's listing.)
func TestSweepFindsOrphansByTheirLastModifiedTime(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	kept, err := d.upload(alice, distinct(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	old, err := uuid.NewV7FromReader(strings.NewReader(strings.Repeat("x", 64)))
	if err != nil {
		t.Fatal(err)
	}
	ms := d.clock.Now().Add(-30 * 24 * time.Hour).UnixMilli() // an id made a month ago
	for i := range 6 {
		old[i] = byte(ms >> (40 - 8*i))
	}
	orphans := []string{media.OriginalKey(old.String()), "originals/not-an-id"}
	for _, key := range orphans {
		if err := d.s3.Put(ctx, key, strings.NewReader("x"), 1, "image/jpeg", ""); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := d.svc.Sweep(ctx); err != nil || r.Orphans != 0 {
		t.Fatalf("a sweep before OrphanAge: %+v %v", r, err)
	}
	d.clock.Add(25 * time.Hour)
	r, err := d.svc.Sweep(ctx)
	if err != nil || r.Orphans != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	for _, key := range orphans {
		d.wantNoKey(key)
	}
	if ok, _ := d.s3.Exists(ctx, media.OriginalKey(kept.ID)); !ok {
		t.Fatal("an original with a row was deleted")
	}
}
