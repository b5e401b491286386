package media_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

const alice, bob = "0190a0a0-0000-7000-8000-00000000000a", "0190a0a0-0000-7000-8000-00000000000b"

func photo(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "photos", name))
	if err != nil {
		t.Fatalf("%v (run scripts/gen-testdata.sh)", err)
	}
	return b
}

func input(t testing.TB, owner string, data []byte, key string) media.UploadInput {
	t.Helper()
	sp, err := media.Spool(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	return media.UploadInput{OwnerID: owner, File: sp, IdempotencyKey: key}
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func wantCode(t *testing.T, err error, code, field string) {
	t.Helper()
	if got := guidepost.ErrorCode(err); got != code {
		t.Fatalf("want %s, got %s (%v)", code, got, err)
	}
	if fields := guidepost.ErrorFields(err); field != "" && (len(fields) != 1 || fields[0].Field != field) {
		t.Fatalf("want the field %q named, got %+v", field, fields)
	}
}

// Bad input is refused from magic bytes and headers alone, with the field
// named, before anything is written anywhere.
func TestUploadRefusesBadInputAndStoresNothing(t *testing.T) {
	e := newEnv(media.Config{MaxBytes: 1 << 20})
	cases := map[string]string{
		"image.svg": guidepost.EUNSUPPORTED, "page.html": guidepost.EUNSUPPORTED,
		"doc.pdf": guidepost.EUNSUPPORTED, "archive.zip": guidepost.EUNSUPPORTED,
		"text.jpg": guidepost.EUNSUPPORTED, "image.gif": guidepost.EUNSUPPORTED,
		"image.tiff": guidepost.EUNSUPPORTED, "bomb.png": guidepost.EUNPROCESSABLE,
		"polyglot-header.jpg": guidepost.EUNPROCESSABLE,
	}
	for name, code := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := e.svc.Upload(context.Background(), input(t, alice, photo(t, name), ""))
			wantCode(t, err, code, "file")
		})
	}
	_, err := e.svc.Upload(context.Background(), input(t, alice, nil, ""))
	wantCode(t, err, guidepost.EINVALID, "file")
	_, err = e.svc.Upload(context.Background(), input(t, alice, make([]byte, 1<<20+1), ""))
	wantCode(t, err, guidepost.ETOOLARGE, "file")
	wantCode(t, e.svc.CheckSize(1<<20+1), guidepost.ETOOLARGE, "file")
	if err := e.svc.CheckSize(-1); err != nil {
		t.Fatalf("an undeclared size is checked while reading, not here: %v", err)
	}
	if len(e.blobs.keys()) != 0 || len(e.store.rows) != 0 || len(e.queue.queued) != 0 {
		t.Fatalf("bad input left objects %v, rows %d, tasks %d", e.blobs.keys(), len(e.store.rows), len(e.queue.queued))
	}
}

func TestUploadStoresOriginalRowAndTask(t *testing.T) {
	e := newEnv(media.Config{})
	data := photo(t, "orient-6.jpg")
	res, err := e.svc.Upload(context.Background(), input(t, alice, data, ""))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Media
	if res.Outcome != media.Accepted || m.Status != media.StatusPending || m.ContentType != "image/jpeg" ||
		m.Bytes != int64(len(data)) || m.Width != 240 || m.Height != 160 {
		t.Fatalf("accepted: %+v", res)
	}
	if got := e.blobs.keys(); len(got) != 1 || got[0] != media.OriginalKey(m.ID) {
		t.Fatalf("objects: %v", got)
	}
	if e.queue.times(m.ID) != 1 {
		t.Fatal("no task queued")
	}
	if res.OriginalURL == "" || res.WebURL != "" || res.ThumbURL != "" {
		t.Fatalf("urls of a pending photo for its owner: %+v", res.View)
	}
	if v, _ := e.svc.Get(context.Background(), m.ID, bob); v.OriginalURL != "" {
		t.Fatal("another user sees the original")
	}
}

// The same bytes from the same owner answer with the first photo: no second
// object, no second task. Another owner gets a photo of their own.
func TestUploadDuplicateReturnsTheFirst(t *testing.T) {
	e := newEnv(media.Config{})
	data := photo(t, "photo.png")
	first, _ := e.svc.Upload(context.Background(), input(t, alice, data, ""))
	again, err := e.svc.Upload(context.Background(), input(t, alice, data, ""))
	if err != nil || again.Outcome != media.Duplicate || again.ID != first.ID {
		t.Fatalf("duplicate: %+v, %v", again, err)
	}
	other, _ := e.svc.Upload(context.Background(), input(t, bob, data, ""))
	if other.Outcome != media.Accepted || other.ID == first.ID {
		t.Fatalf("another owner: %+v", other)
	}
	if n := len(e.blobs.keys()); n != 2 || e.queue.times(first.ID) != 1 {
		t.Fatalf("%d objects, %d tasks for the first", n, e.queue.times(first.ID))
	}
}

// Two identical uploads racing both pass the duplicate check; the unique
// index decides, and the loser deletes its original and answers with the
// winner.
func TestUploadDuplicateRaceLoserCleansUp(t *testing.T) {
	e := newEnv(media.Config{})
	data := photo(t, "photo.webp")
	var winner media.UploadResult
	e.store.beforeCreate = func() {
		e.store.beforeCreate = nil
		winner, _ = e.svc.Upload(context.Background(), input(t, alice, data, ""))
	}
	loser, err := e.svc.Upload(context.Background(), input(t, alice, data, ""))
	if err != nil || loser.Outcome != media.Duplicate || loser.ID != winner.ID {
		t.Fatalf("loser: %+v, %v (winner %s)", loser, err, winner.ID)
	}
	if got := e.blobs.keys(); len(got) != 1 || got[0] != media.OriginalKey(winner.ID) {
		t.Fatalf("objects: %v", got)
	}
}

func TestUploadWithS3DownLeavesNoRow(t *testing.T) {
	e := newEnv(media.Config{})
	e.blobs.down = true
	_, err := e.svc.Upload(context.Background(), input(t, alice, photo(t, "photo.jpg"), "k"))
	wantCode(t, err, guidepost.EUNAVAILABLE, "")
	if len(e.store.rows) != 0 || len(e.queue.queued) != 0 || len(e.keys.uses) != 0 {
		t.Fatalf("rows %d, tasks %d, keys %d", len(e.store.rows), len(e.queue.queued), len(e.keys.uses))
	}
}

// Redis down: the upload is still accepted; the sweeper queues it once it
// has waited PendingAge.
func TestUploadWithQueueDownIsSweptLater(t *testing.T) {
	e := newEnv(media.Config{})
	e.queue.down = true
	res, err := e.svc.Upload(context.Background(), input(t, alice, photo(t, "photo.jpg"), ""))
	if err != nil || res.Outcome != media.Accepted {
		t.Fatalf("%+v, %v", res, err)
	}
	e.queue.down = false
	if r, _ := e.svc.Sweep(context.Background()); r.Requeued != 0 {
		t.Fatal("a fresh photo was requeued before PendingAge")
	}
	e.clock.Add(6 * time.Minute)
	r, err := e.svc.Sweep(context.Background())
	if err != nil || r.Requeued != 1 || e.queue.times(res.ID) != 1 {
		t.Fatalf("sweep: %+v, %v", r, err)
	}
	e.clock.Add(6 * time.Minute)
	if r, _ := e.svc.Sweep(context.Background()); r.Requeued != 0 {
		t.Fatalf("a photo with a live task was requeued: %+v", r)
	}
}

func TestIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	jpeg, png := photo(t, "photo.jpg"), photo(t, "photo.png")
	first, err := e.svc.Upload(ctx, input(t, alice, jpeg, "key-1"))
	if err != nil {
		t.Fatal(err)
	}
	replay, err := e.svc.Upload(ctx, input(t, alice, jpeg, "key-1"))
	if err != nil || !replay.Replayed || replay.ID != first.ID || replay.Outcome != media.Accepted {
		t.Fatalf("replay: %+v, %v", replay, err)
	}
	_, err = e.svc.Upload(ctx, input(t, alice, png, "key-1"))
	wantCode(t, err, guidepost.EUNPROCESSABLE, "Idempotency-Key")
	// Another user's key of the same name is theirs alone.
	if res, err := e.svc.Upload(ctx, input(t, bob, png, "key-1")); err != nil || res.Replayed {
		t.Fatalf("bob's key-1: %+v, %v", res, err)
	}
	// In flight: a first request holding the key and not done.
	e.keys.uses[alice+"/key-2"] = media.KeyUse{OwnerID: alice, Key: "key-2", Fingerprint: replay.SHA256, At: e.clock.Now()}
	_, err = e.svc.Upload(ctx, input(t, alice, jpeg, "key-2"))
	wantCode(t, err, guidepost.ECONFLICT, "Idempotency-Key")
	_, err = e.svc.Upload(ctx, input(t, alice, jpeg, "bad key"))
	wantCode(t, err, guidepost.EINVALID, "Idempotency-Key")
	// 24 hours later the key is free again.
	e.clock.Add(25 * time.Hour)
	if res, err := e.svc.Upload(ctx, input(t, alice, png, "key-1")); err != nil || res.Replayed {
		t.Fatalf("after 24 h: %+v, %v", res, err)
	}
}

// A failed first request leaves its key free: the client retries it.
func TestIdempotencyKeyReleasedOnFailure(t *testing.T) {
	e := newEnv(media.Config{})
	e.blobs.down = true
	data := photo(t, "photo.jpg")
	if _, err := e.svc.Upload(context.Background(), input(t, alice, data, "k")); err == nil {
		t.Fatal("upload with S3 down succeeded")
	}
	e.blobs.down = false
	res, err := e.svc.Upload(context.Background(), input(t, alice, data, "k"))
	if err != nil || res.Replayed || res.Outcome != media.Accepted {
		t.Fatalf("retry: %+v, %v", res, err)
	}
}

// A photo that failed for a reason outside its bytes asked its owner to
// upload it again; doing so retries it: the same photo, pending again from
// scratch, its original stored again and its task queued again.
func TestUploadAgainRetriesAPhotoThatFailedOutsideItsBytes(t *testing.T) {
	ctx := context.Background()
	failures := map[string]func(e *env, id string){
		"gave up during an outage": func(e *env, id string) {
			e.blobs.down = true
			e.svc.Derive(ctx, media.DeriveTask{MediaID: id, LastTry: true})
			e.blobs.down = false
		},
		"original lost": func(e *env, id string) {
			e.blobs.Delete(ctx, media.OriginalKey(id))
			e.svc.Derive(ctx, media.DeriveTask{MediaID: id})
		},
		"crashed its worker every time": func(e *env, id string) {
			for range 3 {
				e.store.Start(ctx, id, e.clock.Now())
			}
			e.svc.Derive(ctx, media.DeriveTask{MediaID: id})
		},
	}
	for name, fail := range failures {
		t.Run(name, func(t *testing.T) {
			e := newEnv(media.Config{MaxAttempts: 2})
			data := photo(t, "photo.jpg")
			first, _ := e.svc.Upload(ctx, input(t, alice, data, ""))
			fail(e, first.ID)
			if row, _ := e.store.Get(ctx, first.ID); row.Status != media.StatusFailed {
				t.Fatalf("setup: %+v", row)
			}
			again, err := e.svc.Upload(ctx, input(t, alice, data, ""))
			if err != nil || again.Outcome != media.Accepted || again.ID != first.ID || again.Status != media.StatusPending ||
				again.Attempts != 0 || again.Failure != "" || again.FailureReason != "" || !again.ProcessedAt.IsZero() {
				t.Fatalf("upload again: %+v, %v", again, err)
			}
			if !bytes.Equal(e.blobs.objects[media.OriginalKey(first.ID)], data) || e.queue.times(first.ID) != 2 {
				t.Fatalf("original stored: %v, queued %d times", e.blobs.keys(), e.queue.times(first.ID))
			}
			if err := e.svc.Derive(ctx, media.DeriveTask{MediaID: first.ID}); err != nil {
				t.Fatal(err)
			}
			third, err := e.svc.Upload(ctx, input(t, alice, data, ""))
			if err != nil || third.Outcome != media.Duplicate || third.Status != media.StatusReady {
				t.Fatalf("after the retry: %+v, %v", third, err)
			}
		})
	}
}

// A photo that failed for its own fault would fail again: uploading it
// again answers with the failure, and nothing is stored or queued.
func TestUploadAgainOfACorruptPhotoAnswersItsFailure(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	data := photo(t, "corrupt.jpg")
	first, _ := e.svc.Upload(ctx, input(t, alice, data, ""))
	e.svc.Derive(ctx, media.DeriveTask{MediaID: first.ID})
	again, err := e.svc.Upload(ctx, input(t, alice, data, ""))
	if err != nil || again.Outcome != media.Duplicate || again.Status != media.StatusFailed ||
		again.FailureReason != "corrupt" || !strings.Contains(again.Failure, "damaged") || e.queue.times(first.ID) != 1 {
		t.Fatalf("%+v, %v, queued %d times", again, err, e.queue.times(first.ID))
	}
}

// Two uploads retrying one failed photo at once reset it once: one is
// accepted and queues the task, the other answers with the pending photo.
func TestUploadAgainRaceRetriesOnce(t *testing.T) {
	ctx := context.Background()
	e := newEnv(media.Config{})
	data := photo(t, "photo.png")
	first, _ := e.svc.Upload(ctx, input(t, alice, data, ""))
	e.blobs.Delete(ctx, media.OriginalKey(first.ID))
	e.svc.Derive(ctx, media.DeriveTask{MediaID: first.ID})
	var winner media.UploadResult
	e.store.beforeRetry = func() {
		e.store.beforeRetry = nil
		winner, _ = e.svc.Upload(ctx, input(t, alice, data, ""))
	}
	loser, err := e.svc.Upload(ctx, input(t, alice, data, ""))
	if err != nil || winner.Outcome != media.Accepted || loser.Outcome != media.Duplicate ||
		loser.ID != first.ID || loser.Status != media.StatusPending || e.queue.times(first.ID) != 2 {
		t.Fatalf("winner %+v\nloser %+v, %v; queued %d times", winner, loser, err, e.queue.times(first.ID))
	}
}

// An insert that failed may have committed (the reply was lost when the
// connection broke): the original must stay, or the row could be left
// without it. The sweeper deletes it later if no row has it.
func TestUploadKeepsTheOriginalWhenTheInsertMayHaveCommitted(t *testing.T) {
	e := newEnv(media.Config{})
	e.store.afterCreate = func() error {
		return guidepost.Wrap(guidepost.EUNAVAILABLE, io.ErrUnexpectedEOF, "the database is unavailable; try again shortly")
	}
	_, err := e.svc.Upload(context.Background(), input(t, alice, photo(t, "photo.jpg"), ""))
	wantCode(t, err, guidepost.EUNAVAILABLE, "")
	if len(e.store.rows) != 1 {
		t.Fatalf("rows: %d", len(e.store.rows))
	}
	for id := range e.store.rows {
		if got := e.blobs.keys(); len(got) != 1 || got[0] != media.OriginalKey(id) {
			t.Fatalf("the committed row's original was deleted: objects %v", got)
		}
	}
}

// A client that hangs up once its original is stored does not stop the
// insert half-way: the photo is recorded and queued, whole.
func TestUploadOutlivesAClientThatHangsUp(t *testing.T) {
	e := newEnv(media.Config{})
	ctx, hangUp := context.WithCancel(context.Background())
	e.store.beforeCreate = hangUp
	res, err := e.svc.Upload(ctx, input(t, alice, photo(t, "photo.jpg"), ""))
	if err != nil || res.Outcome != media.Accepted {
		t.Fatalf("%+v, %v", res, err)
	}
	if _, err := e.store.Get(context.Background(), res.ID); err != nil || len(e.blobs.keys()) != 1 || e.queue.times(res.ID) != 1 {
		t.Fatalf("row %v, objects %v, queued %d times", err, e.blobs.keys(), e.queue.times(res.ID))
	}
}

// A request that outlives KeyLease loses its key to a repeat, which takes
// it over. The stale request then finishing, or failing, must not touch
// the new claim: not overwrite its answer, not free the key under it.
func TestIdempotencyKeyStaleRequestLeavesTheNewClaimAlone(t *testing.T) {
	ctx := context.Background()
	for _, staleFails := range []bool{false, true} {
		e := newEnv(media.Config{})
		data := photo(t, "photo.jpg")
		var repeat media.UploadResult
		var repeatErr error
		e.store.beforeCreate = func() {
			e.store.beforeCreate = nil
			e.clock.Add(2 * time.Minute) // past KeyLease: the repeat takes the key over
			if staleFails {
				e.store.afterCreate = func() error { return guidepost.Errorf(guidepost.EUNAVAILABLE, "connection reset") }
				e.keys.Claim(ctx, media.KeyUse{OwnerID: alice, Key: "k", Fingerprint: sha(data), At: e.clock.Now()},
					e.clock.Now().Add(-time.Minute), e.clock.Now().Add(-24*time.Hour))
				return
			}
			repeat, repeatErr = e.svc.Upload(ctx, input(t, alice, data, "k"))
		}
		stale, err := e.svc.Upload(ctx, input(t, alice, data, "k"))
		held := e.keys.uses[alice+"/k"]
		if staleFails {
			if err == nil || held.Done || !held.At.Equal(e.clock.Now()) {
				t.Fatalf("the stale request's failure freed the new claim: %v, %+v", err, held)
			}
			continue
		}
		if repeatErr != nil || err != nil || repeat.Outcome != media.Accepted || stale.Outcome != media.Duplicate {
			t.Fatalf("repeat %+v, %v; stale %+v, %v", repeat, repeatErr, stale, err)
		}
		replay, err := e.svc.Upload(ctx, input(t, alice, data, "k"))
		if err != nil || !replay.Replayed || replay.Outcome != media.Accepted {
			t.Fatalf("the stale request overwrote the repeat's answer: %+v, %v", replay, err)
		}
	}
}

// The service spools and hashes the body itself: the size and SHA-256
// that duplicates and Idempotency-Key fingerprints rest on are never a
// caller's word. Over the limit is 413, and leaves no file behind.
func TestSpoolMeasuresAndHashes(t *testing.T) {
	data := photo(t, "photo.jpg")
	sp, err := media.Spool(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if sp.Size() != int64(len(data)) || sp.SHA256() != sha(data) {
		t.Errorf("spooled %d bytes, %s; want %d, %s", sp.Size(), sp.SHA256(), len(data), sha(data))
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sp.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "guidepost-upload-*"))
	_, err = media.Spool(bytes.NewReader(data), int64(len(data))-1)
	wantCode(t, err, guidepost.ETOOLARGE, "file")
	if after, _ := filepath.Glob(filepath.Join(os.TempDir(), "guidepost-upload-*")); len(after) > len(before) {
		t.Errorf("a refused spool left %v", after)
	}
}
