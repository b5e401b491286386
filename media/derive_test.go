package media_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/media"
	mphoto "github.com/guidepost/guidepost/media/photo"
)

func accepted(t *testing.T, e *env, name string) media.Media {
	t.Helper()
	res, err := e.svc.Upload(context.Background(), input(t, alice, photo(t, name), ""))
	if err != nil {
		t.Fatal(err)
	}
	return res.Media
}

// Running a task twice leaves the same objects and the same row.
func TestDeriveIsIdempotent(t *testing.T) {
	e := newEnv(media.Config{PublicBase: "https://cdn.test"})
	m := accepted(t, e, "orient-6.jpg")
	task := media.DeriveTask{MediaID: m.ID}
	if err := e.svc.Derive(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	row, _ := e.store.Get(context.Background(), m.ID)
	web := bytes.Clone(e.blobs.objects[e.store.rows[m.ID].JPEGKey(media.KindWeb)])
	e.clock.Add(time.Minute)
	if err := e.svc.Derive(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	again, _ := e.store.Get(context.Background(), m.ID)
	if !reflect.DeepEqual(row, again) || row.Status != media.StatusReady || row.ThumbHash == "" || row.ProcessedAt.IsZero() {
		t.Fatalf("row changed or not ready:\n%+v\n%+v", row, again)
	}
	if !bytes.Equal(web, e.blobs.objects[again.JPEGKey(media.KindWeb)]) {
		t.Fatal("the web JPEG changed on the second run")
	}
	img, err := jpeg.Decode(bytes.NewReader(web))
	if err != nil || img.Bounds().Dx() != 240 || img.Bounds().Dy() != 160 {
		t.Fatalf("web: %v, %v", img.Bounds(), err)
	}
	v, _ := e.svc.Get(context.Background(), m.ID, "")
	if v.WebURL != "https://cdn.test/"+again.JPEGKey(media.KindWeb) || v.ThumbURL != "https://cdn.test/"+again.JPEGKey(media.KindThumb) || v.OriginalURL != "" {
		t.Fatalf("public URLs: %+v", v)
	}
	coverExpandsToEveryVariant(t, e.svc.CoverURLs(context.Background(), m.ID, again.Variants), v)
}

// A list's cover under a public base: its URLs are the photo's, and every
// variant's URL is the marker's with the file name <kind>.<ext>, for each
// of the formats listed.
func coverExpandsToEveryVariant(t *testing.T, c media.CoverURLs, v media.View) {
	t.Helper()
	if c.Thumbnail != v.ThumbURL || c.Marker != v.MarkerURL || c.Marker == "" || len(c.Formats) < 2 {
		t.Fatalf("cover URLs %+v for a photo with %s, %s", c, v.ThumbURL, v.MarkerURL)
	}
	base, err := url.Parse(c.Marker)
	if err != nil {
		t.Fatal(err)
	}
	expanded := map[string]bool{}
	for _, kind := range []string{media.KindMarker, media.KindSmall, media.KindThumb, media.KindWeb} {
		for _, f := range c.Formats {
			ref, _ := url.Parse(kind + "." + f.Ext())
			expanded[base.ResolveReference(ref).String()] = true
		}
	}
	if len(v.VariantURLs) != len(expanded) {
		t.Errorf("%d variants, the cover expands to %d", len(v.VariantURLs), len(expanded))
	}
	for _, x := range v.VariantURLs {
		if !expanded[x.URL] {
			t.Errorf("variant %s %s (%s) is not in the cover's expansion %v", x.Kind, x.Format, x.URL, expanded)
		}
	}
}

// A photo that cannot be decoded fails once, permanently, with words for
// its owner, and is never retried.
func TestDeriveCorruptPhotoFailsPermanently(t *testing.T) {
	e := newEnv(media.Config{})
	m := accepted(t, e, "corrupt.jpg")
	err := e.svc.Derive(context.Background(), media.DeriveTask{MediaID: m.ID})
	if !media.IsPermanent(err) || media.FailureReason(err) != "corrupt" {
		t.Fatalf("want a permanent corrupt failure, got %v", err)
	}
	row, _ := e.store.Get(context.Background(), m.ID)
	if row.Status != media.StatusFailed || !strings.Contains(row.Failure, "damaged") {
		t.Fatalf("row: %+v", row)
	}
	if got := e.blobs.keys(); len(got) != 1 || got[0] != media.OriginalKey(m.ID) {
		t.Fatalf("a failed photo has derivatives: %v", got)
	}
	if err := e.svc.Derive(context.Background(), media.DeriveTask{MediaID: m.ID}); err != nil {
		t.Fatalf("a second run of a failed photo: %v", err)
	}
}

// Storage trouble is retried; on the last try it fails the photo instead of
// leaving it processing for ever.
func TestDeriveTransientFailureRetriesThenGivesUp(t *testing.T) {
	e := newEnv(media.Config{})
	m := accepted(t, e, "photo.jpg")
	e.blobs.down = true
	err := e.svc.Derive(context.Background(), media.DeriveTask{MediaID: m.ID})
	if err == nil || media.IsPermanent(err) || media.FailureReason(err) != "unavailable" {
		t.Fatalf("want a transient failure, got %v", err)
	}
	if row, _ := e.store.Get(context.Background(), m.ID); row.Status != media.StatusProcessing {
		t.Fatalf("after a transient failure: %s", row.Status)
	}
	e.svc.Derive(context.Background(), media.DeriveTask{MediaID: m.ID, LastTry: true})
	if row, _ := e.store.Get(context.Background(), m.ID); row.Status != media.StatusFailed || row.Failure == "" {
		t.Fatalf("after the last try: %+v", row)
	}
	err = e.svc.Derive(context.Background(), media.DeriveTask{MediaID: uuid.NewString()})
	if !media.IsPermanent(err) {
		t.Fatalf("a task for a missing row must not retry: %v", err)
	}
}

// A photo whose task the queue gave up on after a worker started it is
// failed by the sweeper, as one a re-upload may retry. A dead task of a
// photo no worker started belongs to an earlier life of the photo (a
// re-upload while Redis was down could not replace it): the photo is
// queued again, not failed untried.
func TestSweepFailsPhotosWithDeadTasks(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	started, untried := accepted(t, e, "photo.jpg"), accepted(t, e, "photo.png")
	e.store.Start(ctx, started.ID, e.clock.Now())
	e.queue.states[started.ID] = media.TaskDead
	e.queue.states[untried.ID] = media.TaskDead
	e.clock.Add(time.Hour)
	r, err := e.svc.Sweep(ctx)
	row, _ := e.store.Get(ctx, started.ID)
	if err != nil || r.Failed != 1 || row.Status != media.StatusFailed || row.FailureReason != "gave_up" {
		t.Fatalf("%+v, %v, %+v", r, err, row)
	}
	row, _ = e.store.Get(ctx, untried.ID)
	if r.Requeued != 1 || row.Status != media.StatusPending || e.queue.times(untried.ID) != 2 {
		t.Fatalf("untried: %+v, %+v, queued %d times", r, row, e.queue.times(untried.ID))
	}
}

// An original with no row (a crash between the S3 put and the insert) is
// deleted once it is a day old, and not before; originals with rows stay.
func TestSweepDeletesOrphansAfterADay(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	kept := accepted(t, e, "photo.jpg")
	orphan := uuid.Must(uuid.NewV7()).String()
	data := photo(t, "photo.png")
	e.blobs.Put(ctx, media.OriginalKey(orphan), bytes.NewReader(data), int64(len(data)), "image/png", sha(data))
	e.blobs.objects["media/not-an-id/original"] = []byte("x")

	e.clock.Add(23 * time.Hour)
	if r, _ := e.svc.Sweep(ctx); r.Orphans != 0 {
		t.Fatalf("deleted before a day: %+v", r)
	}
	e.clock.Add(2 * time.Hour)
	r, err := e.svc.Sweep(ctx)
	if err != nil || r.Orphans != 1 {
		t.Fatalf("%+v, %v", r, err)
	}
	want := []string{"media/not-an-id/original", media.OriginalKey(kept.ID)}
	if got := e.blobs.keys(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("objects left: %v", got)
	}
}

// recordingRenderer renders in process and keeps the Info it was given.
type recordingRenderer struct {
	mu    sync.Mutex
	infos []mphoto.Info
}

func (r *recordingRenderer) Render(ctx context.Context, data []byte, info mphoto.Info, opts mphoto.Options) (mphoto.Result, error) {
	r.mu.Lock()
	r.infos = append(r.infos, info)
	r.mu.Unlock()
	return media.InProcess{}.Render(ctx, data, info, opts)
}

// A derive probes the photo once and hands that probe to the renderer,
// which renders from it without probing again.
func TestDeriveHandsItsProbeToTheRenderer(t *testing.T) {
	rr := &recordingRenderer{}
	e := newEnvWith(media.Config{}, func(d *media.Deps) { d.Renderer = rr })
	m := accepted(t, e, "orient-6.jpg")
	if err := e.svc.Derive(context.Background(), media.DeriveTask{MediaID: m.ID}); err != nil {
		t.Fatal(err)
	}
	if len(rr.infos) != 1 || rr.infos[0].Width != 160 || rr.infos[0].Orientation != 6 {
		t.Fatalf("renderer got %+v", rr.infos)
	}
}
