package media_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/guidepost/guidepost/media"
)

// The same file declared again while its upload is open is that upload,
// with fresh URLs and what the store holds; OpenUploads lists what an app
// that lost its ids still has open. Nothing here spends a slot.
func TestDeclaringAnOpenFileAgainResumesIt(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{Direct: media.DirectConfig{MaxOpen: 2}})
	data := photo(t, "orient-6.jpg")
	first := d.start(declare(alice, data, "image/jpeg"))
	if code := d.put(first.Send[0], data, first.PartSize, -1); code != http.StatusOK {
		t.Fatalf("part: %d", code)
	}
	for range 5 { // more than MaxOpen: none of them opens an upload
		res, err := d.svc.StartUpload(ctx, declare(alice, data, "image/jpeg"))
		if err != nil || res.Outcome != media.UploadResumed || res.Ticket.ID != first.ID || len(res.Ticket.Held) != 1 || len(res.Ticket.Send) != 0 {
			t.Fatalf("declared again: %s %+v %v", res.Outcome, res.Ticket, err)
		}
	}
	// Another size is another file; bob's upload of the same bytes is his.
	other := declare(alice, data, "image/jpeg")
	other.Bytes++
	if res, err := d.svc.StartUpload(ctx, other); err != nil || res.Outcome != media.UploadStarted || res.Ticket.ID == first.ID {
		t.Fatalf("another size: %s %v", res.Outcome, err)
	}
	bobs := d.start(declare(bob, data, "image/jpeg"))
	open, err := d.svc.OpenUploads(ctx, alice)
	if err != nil || len(open) != 2 || open[0].ID != first.ID || len(open[0].Held) != 1 || open[1].Send[0].URL == "" {
		t.Fatalf("alice's open uploads: %+v %v", open, err)
	}
	if err := d.svc.AbortUpload(ctx, open[1].ID, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := d.svc.CompleteUpload(ctx, first.ID, alice); err != nil {
		t.Fatal(err)
	}
	if open, err := d.svc.OpenUploads(ctx, alice); err != nil || len(open) != 0 {
		t.Fatalf("after complete and abort: %+v %v", open, err)
	}
	if open, _ := d.svc.OpenUploads(ctx, bob); len(open) != 1 || open[0].ID != bobs.ID {
		t.Fatalf("bob's: %+v", open)
	}
	// A declaration of a completed file is that photo, as before.
	if res, err := d.svc.StartUpload(ctx, declare(alice, data, "image/jpeg")); err != nil || res.Outcome != media.Duplicate {
		t.Fatalf("after completion: %s %v", res.Outcome, err)
	}
}
