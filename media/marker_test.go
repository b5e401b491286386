package media_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost/media"
)

// notified records what the service told owners.
type notified struct {
	mu   sync.Mutex
	sent []string // "owner id status"
}

func (n *notified) PhotoFinished(_ context.Context, owner, id string, status media.Status) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, owner+" "+id+" "+string(status))
	return nil
}

func (n *notified) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.sent...)
}

// A render stores the marker beside the other derivatives and shows its
// URL; the owner hears once the row is ready, or failed.
func TestDeriveStoresTheMarkerAndNotifiesTheOwner(t *testing.T) {
	ctx := context.Background()
	n := &notified{}
	e := newEnvWith(media.Config{PublicBase: "https://cdn.test"}, func(d *media.Deps) { d.Notifier = n })
	m := derived(t, e, "photo.jpg") // 640×480
	img, err := jpeg.Decode(bytes.NewReader(e.blobs.objects[e.store.rows[m.ID].JPEGKey(media.KindMarker)]))
	if err != nil || img.Bounds().Dx() != 256 || img.Bounds().Dy() != 256 {
		t.Fatalf("marker: %v, %v", img, err)
	}
	v, _ := e.svc.Get(ctx, m.ID, "")
	if !v.Marker || v.MarkerURL != "https://cdn.test/"+v.JPEGKey(media.KindMarker) {
		t.Fatalf("marker URL: %+v", v)
	}
	bad := accepted(t, e, "corrupt.jpg")
	e.svc.Derive(ctx, media.DeriveTask{MediaID: bad.ID})
	want := []string{alice + " " + m.ID + " ready", alice + " " + bad.ID + " failed"}
	if got := n.all(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("notified %v; want %v", got, want)
	}
}

// A photo made ready before markers existed shows no marker URL until the
// sweeper has queued it and its task has rendered the marker; the photo
// itself does not change and its owner hears nothing.
func TestSweepQueuesMarkersOfOlderPhotos(t *testing.T) {
	ctx := context.Background()
	n := &notified{}
	e := newEnvWith(media.Config{}, func(d *media.Deps) { d.Notifier = n })
	m := derived(t, e, "orient-6.jpg")
	old := e.store.rows[m.ID]
	old.Marker, old.Variants = false, nil // as rendered before markers and variants
	e.store.rows[m.ID] = old
	for _, k := range e.blobs.keys() {
		if k != media.OriginalKey(m.ID) {
			delete(e.blobs.objects, k)
		}
	}
	if v, _ := e.svc.Get(ctx, m.ID, alice); v.MarkerURL != "" || v.ThumbURL == "" {
		t.Fatalf("a photo without its marker: %+v", v)
	}
	delete(e.queue.states, m.ID) // its derive task finished long ago
	r, err := e.svc.Sweep(ctx)
	if err != nil || r.Markers != 1 || e.queue.times(m.ID) != 2 {
		t.Fatalf("sweep: %+v, %v, queued %d times", r, err, e.queue.times(m.ID))
	}
	if r, _ := e.svc.Sweep(ctx); r.Markers != 0 {
		t.Fatal("queued again while its task is live")
	}
	e.clock.Add(time.Hour)
	if err := e.svc.Derive(ctx, media.DeriveTask{MediaID: m.ID}); err != nil {
		t.Fatal(err)
	}
	row := e.store.rows[m.ID]
	img, err := jpeg.Decode(bytes.NewReader(e.blobs.objects[row.JPEGKey(media.KindMarker)]))
	if err != nil || img.Bounds().Dx() != 160 || img.Bounds().Dy() != 160 { // 240×160 displayed
		t.Fatalf("marker: %v, %v", img, err)
	}
	old.Marker, old.Variants = true, row.Variants
	if len(row.Variants) == 0 || !reflect.DeepEqual(row, old) {
		t.Fatalf("the photo changed:\n%+v\n%+v", old, row)
	}
	if v, _ := e.svc.Get(ctx, m.ID, alice); v.MarkerURL == "" {
		t.Fatal("no marker URL once rendered")
	}
	if got := n.all(); len(got) != 1 {
		t.Fatalf("the marker told the owner again: %v", got)
	}
	// One whose task died is left alone.
	other := derived(t, e, "photo.png")
	o := e.store.rows[other.ID]
	o.Marker = false
	e.store.rows[other.ID] = o
	e.queue.states[other.ID] = media.TaskDead
	if r, _ := e.svc.Sweep(ctx); r.Markers != 0 {
		t.Fatalf("a dead task was queued again: %+v", r)
	}
}
