package media_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/image/webp"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/moderation"
	"github.com/guidepost/guidepost/objstore"
	gsql "github.com/guidepost/guidepost/sql"
)

const carol = "0190a0a0-0000-7000-8000-00000000000c"

// variantWorld is the service on PostgreSQL, versitygw and the real block
// store, with alice, bob and carol signed up.
type variantWorld struct {
	t     *testing.T
	db    *gsql.DB
	svc   *media.Service
	clock *clock
}

func newVariantWorld(t *testing.T, cfg media.Config) *variantWorld {
	db := testkit.DB(t)
	w := &variantWorld{t: t, db: db, clock: &clock{now: time.Now()}}
	for _, id := range []string{alice, bob, carol} {
		if err := gsql.NewUsers(db).CreateUser(context.Background(), auth.User{ID: id, DisplayName: id[len(id)-1:], Guest: true, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	w.svc = media.New(media.Deps{
		Store: gsql.NewMedia(db), Keys: gsql.NewIdempotencyKeys(db), Blobs: objstore.New(testkit.S3Config(t)), Clock: w.clock,
		Queue: &fakeQueue{queued: map[string]int{}, states: map[string]media.TaskState{}}, Blocks: gsql.NewBlocks(db),
	}, cfg)
	return w
}

func (w *variantWorld) upload(name string) string {
	w.t.Helper()
	res, err := w.svc.Upload(context.Background(), input(w.t, alice, photo(w.t, name), ""))
	if err != nil {
		w.t.Fatal(err)
	}
	return res.ID
}

// refused wants VariantURL to fail with code, naming field.
func (w *variantWorld) refused(what, viewer, id, variant, code, field string) {
	w.t.Helper()
	_, err := w.svc.VariantURL(context.Background(), viewer, id, variant)
	fields := guidepost.ErrorFields(err)
	if guidepost.ErrorCode(err) != code || field != "" && (len(fields) != 1 || fields[0].Field != field) {
		w.t.Fatalf("%s: %v %+v; want %s naming %q", what, err, fields, code, field)
	}
}

func (w *variantWorld) moderate(action moderation.Action, target moderation.Target) {
	w.t.Helper()
	e := moderation.Entry{ID: uuid.NewString(), Action: action, Target: target, Reason: "test", CreatedAt: time.Now()}
	if _, err := gsql.NewModeration(w.db).Apply(context.Background(), e); err != nil {
		w.t.Fatal(err)
	}
}

// download GETs a presigned URL and returns its bytes.
func download(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	return body
}

// A variant's stable path leads to its presigned URL, reusable until five
// minutes before that URL expires; the path follows GET /v1/media's
// rules: not ready and failed photos are 409s naming the id, a name that
// is no variant is a 400 and one not stored a 404, both naming variant.
func TestVariantURLLeadsToTheVariant(t *testing.T) {
	w := newVariantWorld(t, media.Config{})
	w.clock.now = time.Now().Truncate(time.Hour).Add(7 * time.Minute)
	ctx := context.Background()
	id := w.upload("photo.jpg") // 640×480
	w.refused("pending", "", id, "marker.jpg", guidepost.ECONFLICT, "id")
	if err := w.svc.Derive(ctx, media.DeriveTask{MediaID: id}); err != nil {
		t.Fatal(err)
	}
	link, err := w.svc.VariantURL(ctx, "", id, "marker.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*time.Hour - 7*time.Minute - 5*time.Minute; link.MaxAge != want {
		t.Errorf("max age %s, want %s", link.MaxAge, want)
	}
	v, _ := w.svc.Get(ctx, id, "")
	if link.URL != v.MarkerURL {
		t.Errorf("the path leads to %s, GET /v1/media gives %s", link.URL, v.MarkerURL)
	}
	img, err := jpeg.Decode(bytes.NewReader(download(t, link.URL)))
	if err != nil || img.Bounds().Dx() != 256 || img.Bounds().Dy() != 256 {
		t.Fatalf("marker.jpg: %v, %v", img.Bounds(), err)
	}
	small, _ := w.svc.VariantURL(ctx, bob, id, "small.webp")
	if img, err := webp.Decode(bytes.NewReader(download(t, small.URL))); err != nil || img.Bounds().Dx() != 540 {
		t.Fatalf("small.webp: %v", err)
	}
	w.refused("not rendered", "", id, "small.avif", guidepost.ENOTFOUND, "variant")
	for _, bad := range []string{"marker.jpeg", "thumb.jpg", "original", "marker.", "../web.jpg", ""} {
		w.refused(bad, "", id, bad, guidepost.EINVALID, "variant")
	}
	w.refused("missing", "", uuid.NewString(), "marker.jpg", guidepost.ENOTFOUND, "")
	w.refused("not an id", "", "nope", "marker.jpg", guidepost.ENOTFOUND, "")
	failed := w.upload("corrupt.jpg")
	w.svc.Derive(ctx, media.DeriveTask{MediaID: failed})
	w.refused("failed", "", failed, "marker.jpg", guidepost.ECONFLICT, "id")
	if c := w.svc.CoverURLs(ctx, id, v.Variants); c.Marker != "/v1/media/"+id+"/marker.jpg" || len(c.Formats) != 2 {
		t.Errorf("cover %+v", c)
	}
}

// A photo hidden by a moderator, or by its owner's suspension, and a photo
// of someone the viewer blocks, answer as a missing one, its owner's
// included; each comes back when the hold or the block ends.
func TestVariantURLHidesWhatGetHides(t *testing.T) {
	w := newVariantWorld(t, media.Config{})
	ctx := context.Background()
	id := w.upload("photo.jpg")
	if err := w.svc.Derive(ctx, media.DeriveTask{MediaID: id}); err != nil {
		t.Fatal(err)
	}
	shown := func(what string) {
		t.Helper()
		for _, viewer := range []string{"", alice, bob, carol} {
			if _, err := w.svc.VariantURL(ctx, viewer, id, "thumbnail.jpg"); err != nil {
				t.Fatalf("%s, viewer %q: %v", what, viewer, err)
			}
		}
	}
	hidden := func(what string, viewers ...string) {
		t.Helper()
		for _, viewer := range viewers {
			w.refused(what, viewer, id, "thumbnail.jpg", guidepost.ENOTFOUND, "")
			if _, err := w.svc.Get(ctx, id, viewer); viewer != alice && guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
				t.Fatalf("%s: GET /v1/media shows it to %q", what, viewer)
			}
		}
	}
	shown("at first")
	photo := moderation.Target{Type: moderation.TargetPhoto, ID: id}
	w.moderate(moderation.Hide, photo)
	hidden("hidden", "", alice, bob)
	w.moderate(moderation.Restore, photo)
	shown("restored")
	owner := moderation.Target{Type: moderation.TargetUser, ID: alice}
	w.moderate(moderation.Suspend, owner)
	hidden("suspended", "", alice, carol)
	w.moderate(moderation.Unsuspend, owner)
	shown("unsuspended")
	blocks := gsql.NewBlocks(w.db)
	if _, err := blocks.Block(ctx, bob, alice, uuid.NewString(), time.Now(), 100); err != nil {
		t.Fatal(err)
	}
	hidden("blocked", bob)
	for _, viewer := range []string{"", alice, carol} {
		if _, err := w.svc.VariantURL(ctx, viewer, id, "thumbnail.jpg"); err != nil {
			t.Fatalf("bob's block hides it from %q: %v", viewer, err)
		}
	}
	if err := blocks.Unblock(ctx, bob, alice); err != nil {
		t.Fatal(err)
	}
	shown("unblocked")
}

// Under a public base the path leads to the object's public URL, reused
// for a window, after which hides and blocks are checked again.
func TestVariantURLUnderAPublicBase(t *testing.T) {
	w := newVariantWorld(t, media.Config{PublicBase: "https://cdn.test"})
	ctx := context.Background()
	id := w.upload("photo.jpg")
	if err := w.svc.Derive(ctx, media.DeriveTask{MediaID: id}); err != nil {
		t.Fatal(err)
	}
	v, _ := w.svc.Get(ctx, id, "")
	link, err := w.svc.VariantURL(ctx, "", id, "marker.jpg")
	if err != nil || link.URL != v.MarkerURL || link.MaxAge != media.StableURLWindow {
		t.Fatalf("%+v, %v; GET shows %s", link, err, v.MarkerURL)
	}
	if c := w.svc.CoverURLs(ctx, id, v.Variants); c.Marker != v.MarkerURL {
		t.Errorf("cover marker %s", c.Marker)
	}
}
