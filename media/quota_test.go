package media_test

import (
	"context"
	"testing"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

// Over a quota an upload is EQUOTA naming the quota, and nothing is
// written; bytes already stored still answer as duplicates.
func TestUploadOverQuotaIsRefusedNamingIt(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{QuotaPhotos: 2})
	first, err := e.svc.Upload(ctx, input(t, alice, photo(t, "orient-1.jpg"), ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Upload(ctx, input(t, alice, photo(t, "orient-2.jpg"), "")); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Upload(ctx, input(t, alice, photo(t, "orient-3.jpg"), ""))
	wantCode(t, err, guidepost.EQUOTA, "")
	if l := guidepost.ErrorLimit(err); l == nil || l.Name != "photos" || l.Quota != 2 || l.Used != 2 {
		t.Fatalf("limit %+v", l)
	}
	if n := len(e.blobs.keys()); n != 2 {
		t.Fatalf("%d originals stored, want 2", n)
	}
	again, err := e.svc.Upload(ctx, input(t, alice, photo(t, "orient-1.jpg"), ""))
	if err != nil || again.ID != first.ID || again.Outcome != media.Duplicate {
		t.Fatalf("a repeat of stored bytes over quota: %+v %v", again, err)
	}
	if _, err := e.svc.Upload(ctx, input(t, bob, photo(t, "orient-3.jpg"), "")); err != nil {
		t.Fatalf("another account: %v", err)
	}

	one := int64(len(photo(t, "orient-1.jpg")))
	e = newEnv(media.Config{QuotaBytes: one + 10})
	if _, err := e.svc.Upload(ctx, input(t, alice, photo(t, "orient-1.jpg"), "")); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Upload(ctx, input(t, alice, photo(t, "orient-2.jpg"), ""))
	wantCode(t, err, guidepost.EQUOTA, "")
	if l := guidepost.ErrorLimit(err); l == nil || l.Name != "bytes" || l.Used != one {
		t.Fatalf("limit %+v", l)
	}
}
