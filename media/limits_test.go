package media_test

// The account's limits on the real stack: PostgreSQL for the counts and the
// per-owner lock, versitygw for the objects, Redis for the rate. Whatever
// the route (Upload is POST /v1/media; StartUpload and CompleteUpload the
// direct upload), one accounting.

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth/deletion"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/ratelimit"
	gsql "github.com/guidepost/guidepost/sql"
)

func limiter(t *testing.T) *ratelimit.Redis {
	return ratelimit.New(ratelimit.Deps{Client: testkit.RedisClient(t, testkit.RedisURL(t, testkit.RedisDBMedia))}, ratelimit.Config{})
}

// distinct is a real JPEG made unique by a trailing byte: a new photo each.
func distinct(t *testing.T, i int) []byte {
	return append(photo(t, "photo.jpg"), byte(i), byte(i>>8))
}

// upload sends data the whole direct way and completes it.
func (d *direct) upload(owner string, data []byte) (media.UploadResult, error) {
	d.t.Helper()
	res, err := d.svc.StartUpload(context.Background(), declare(owner, data, "image/jpeg"))
	if err != nil {
		return media.UploadResult{}, err
	}
	d.sendAll(res.Ticket, data)
	return d.svc.CompleteUpload(context.Background(), res.Ticket.ID, owner)
}

func (d *direct) rows(owner string) int64 {
	d.t.Helper()
	u, err := gsql.NewMedia(d.db).Usage(context.Background(), owner, "", d.clock.Now())
	if err != nil {
		d.t.Fatal(err)
	}
	return u.Photos
}

// Open direct uploads count against the photo and byte quotas like stored
// photos, so neither route gets past what the other has taken.
func TestQuotaHoldsOnEveryRoute(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{QuotaPhotos: 2})
	if _, err := d.svc.Upload(ctx, input(t, alice, distinct(t, 1), "")); err != nil {
		t.Fatal(err)
	}
	open := d.start(declare(alice, distinct(t, 2), "image/jpeg"))
	_, err := d.svc.StartUpload(ctx, declare(alice, distinct(t, 3), "image/jpeg"))
	wantCode(t, err, guidepost.EQUOTA, "")
	if l := guidepost.ErrorLimit(err); l == nil || l.Name != "photos" || l.Used != 2 {
		t.Fatalf("limit %+v", l)
	}
	_, err = d.svc.Upload(ctx, input(t, alice, distinct(t, 3), ""))
	wantCode(t, err, guidepost.EQUOTA, "")
	wantCode(t, d.svc.AdmitUpload(ctx, alice), guidepost.EQUOTA, "")
	d.sendAll(open, distinct(t, 2))
	if res, err := d.svc.CompleteUpload(ctx, open.ID, alice); err != nil || res.Outcome != media.Accepted {
		t.Fatalf("the open upload counted against itself: %+v %v", res, err)
	}
	if n := d.rows(alice); n != 2 {
		t.Fatalf("%d photos stored under a quota of 2", n)
	}
	if _, err := d.upload(bob, distinct(t, 3)); err != nil {
		t.Fatalf("another account: %v", err)
	}

	// Bytes: the declared size of an open upload is taken at once.
	one := int64(len(distinct(t, 1)))
	d = newDirect(t, media.Config{QuotaBytes: 2*one + 10})
	d.start(declare(alice, distinct(t, 1), "image/jpeg"))
	d.start(declare(alice, distinct(t, 2), "image/jpeg"))
	_, err = d.svc.Upload(ctx, input(t, alice, distinct(t, 3), ""))
	wantCode(t, err, guidepost.EQUOTA, "")
	if l := guidepost.ErrorLimit(err); l == nil || l.Name != "bytes" || l.Used != 2*one {
		t.Fatalf("limit %+v", l)
	}
}

// Uploads racing on both routes at once pass the quota exactly: the counts
// are read under one per-owner lock by every insert.
func TestQuotaHoldsUnderRacingUploadsOnBothRoutes(t *testing.T) {
	d := newDirect(t, media.Config{QuotaPhotos: 3})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		data := distinct(t, i)
		if i%2 == 0 {
			wg.Go(func() { _, errs[i] = d.svc.Upload(context.Background(), input(t, alice, data, "")) })
		} else {
			wg.Go(func() { _, errs[i] = d.svc.StartUpload(context.Background(), declare(alice, data, "image/jpeg")) })
		}
	}
	wg.Wait()
	ok := admitted(t, errs, guidepost.EQUOTA)
	u, _ := gsql.NewMedia(d.db).Usage(context.Background(), alice, "", d.clock.Now())
	if ok != 3 || u.Photos+u.Open != 3 {
		t.Fatalf("%d uploads admitted (%d stored, %d open) under a quota of 3", ok, u.Photos, u.Open)
	}
	// Every original refused before or after its put is gone.
	if n := d.objects(); int64(n) != u.Photos {
		t.Fatalf("%d objects for %d photos", n, u.Photos)
	}
}

// admitted counts the calls that succeeded; every other must have been
// refused with refusal.
func admitted(t *testing.T, errs []error, refusal string) int {
	t.Helper()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case guidepost.ErrorCode(err) != refusal:
			t.Fatal(err)
		}
	}
	return ok
}

func (d *direct) objects() int {
	n := 0
	d.s3.List(context.Background(), "", func(media.Object) error { n++; return nil })
	return n
}

// The quota is checked again at completion: uploads opened under a larger
// quota (another process's, before a change) complete only as far as the
// quota goes, and the refused one leaves nothing behind.
func TestQuotaCheckedAgainWhenAnUploadCompletes(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{QuotaPhotos: 5})
	var tks []media.UploadTicket
	for i := range 3 {
		tk := d.start(declare(alice, distinct(t, i), "image/jpeg"))
		d.sendAll(tk, distinct(t, i))
		tks = append(tks, tk)
	}
	strict := d.service(media.Config{QuotaPhotos: 2}, d.s3)
	for _, tk := range tks[:2] {
		if _, err := strict.CompleteUpload(ctx, tk.ID, alice); err != nil {
			t.Fatal(err)
		}
	}
	_, err := strict.CompleteUpload(ctx, tks[2].ID, alice)
	wantCode(t, err, guidepost.EQUOTA, "")
	d.wantNothingLeft(tks[2])
}

// wantNothingLeft: a refused upload keeps no object, no parts, no row, and
// is over.
func (d *direct) wantNothingLeft(tk media.UploadTicket) {
	d.t.Helper()
	ctx := context.Background()
	if ok, _ := d.s3.Exists(ctx, tk.Key); ok {
		d.t.Fatal("the refused upload's object was kept")
	}
	if d.openUploads() != 0 {
		d.t.Fatal("the store still holds parts")
	}
	if _, err := gsql.NewMedia(d.db).Get(ctx, tk.MediaID); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		d.t.Fatalf("a row was written: %v", err)
	}
	if st, _ := d.svc.UploadStatus(ctx, tk.ID, tk.OwnerID); st.State != media.UploadAborted {
		d.t.Fatalf("state %s", st.State)
	}
}

// An object larger than declared (grown in the store after the parts were
// checked, here by a rewrite) is refused at completion and deleted; it
// never becomes a photo, and counts against nothing.
func TestGrownFileIsRefusedAndNothingStored(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := distinct(t, 1)
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.sendAll(tk, data)
	parts, _ := d.s3.ListParts(ctx, tk.Key, tk.StoreID)
	if err := d.s3.CompleteMultipart(ctx, tk.Key, tk.StoreID, parts); err != nil {
		t.Fatal(err)
	}
	grown := append(bytes.Clone(data), make([]byte, 1<<20)...)
	if err := d.s3.Put(ctx, tk.Key, bytes.NewReader(grown), int64(len(grown)), "image/jpeg", sha(grown)); err != nil {
		t.Fatal(err)
	}
	_, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	wantCode(t, err, guidepost.EUNPROCESSABLE, "bytes")
	d.wantNothingLeft(tk)
	if u, _ := gsql.NewMedia(d.db).Usage(ctx, alice, "", d.clock.Now()); u != (media.Usage{}) {
		t.Fatalf("usage after a refused upload: %+v", u)
	}
}

// One rate for both routes: a render queued by either spends it, a
// duplicate spends nothing, and once it is spent neither route starts
// another upload.
func TestUploadRateHoldsOnEveryRoute(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	d.withUploadRate(limiter(t), guidepost.Rate{Name: "upload", Count: 3, Period: time.Hour})
	first, err := d.svc.Upload(ctx, input(t, alice, distinct(t, 1), ""))
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		if _, err := d.upload(alice, distinct(t, i)); err != nil {
			t.Fatalf("direct upload %d: %v", i, err)
		}
	}
	if again, err := d.svc.Upload(ctx, input(t, alice, distinct(t, 1), "")); err != nil || again.ID != first.ID {
		t.Fatalf("a duplicate over the rate: %+v %v", again, err)
	}
	_, err = d.svc.StartUpload(ctx, declare(alice, distinct(t, 4), "image/jpeg"))
	wantCode(t, err, guidepost.ERATELIMITED, "")
	if l := guidepost.ErrorLimit(err); l == nil || l.Name != "upload" || l.RetryAfter < 19*time.Minute || l.Window != time.Hour {
		t.Fatalf("limit %+v", l)
	}
	_, err = d.svc.Upload(ctx, input(t, alice, distinct(t, 4), ""))
	wantCode(t, err, guidepost.ERATELIMITED, "")
	wantCode(t, d.svc.AdmitUpload(ctx, alice), guidepost.ERATELIMITED, "")
	if n := d.rows(alice); n != 3 || len(d.queue.queued) != 3 {
		t.Fatalf("%d photos, %d renders queued under a rate of 3", n, len(d.queue.queued))
	}
	if _, err := d.upload(bob, distinct(t, 4)); err != nil {
		t.Fatalf("another account: %v", err)
	}
}

// The rate is spent by the render, at completion: uploads opened while
// some was left complete as far as it goes; the next stays open, its bytes
// kept, and completes once the rate allows.
func TestUploadRateSpentWhenAnUploadCompletes(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	l := limiter(t)
	rate := guidepost.Rate{Name: "upload", Count: 2, Period: time.Hour}
	d.withUploadRate(l, rate)
	var tks []media.UploadTicket
	for i := range 3 {
		tk := d.start(declare(alice, distinct(t, i), "image/jpeg"))
		d.sendAll(tk, distinct(t, i))
		tks = append(tks, tk)
	}
	for _, tk := range tks[:2] {
		if _, err := d.svc.CompleteUpload(ctx, tk.ID, alice); err != nil {
			t.Fatal(err)
		}
	}
	_, err := d.svc.CompleteUpload(ctx, tks[2].ID, alice)
	wantCode(t, err, guidepost.ERATELIMITED, "")
	if st, err := d.svc.UploadStatus(ctx, tks[2].ID, alice); err != nil || st.State != media.UploadOpen {
		t.Fatalf("after a refusal for the rate: %+v %v", st.Upload, err)
	}
	l.Take(ctx, alice, rate, -1) // an emission interval later
	if res, err := d.svc.CompleteUpload(ctx, tks[2].ID, alice); err != nil || res.Outcome != media.Accepted {
		t.Fatalf("completing once the rate allows: %+v %v", res, err)
	}
	if len(d.queue.queued) != 3 {
		t.Fatalf("queued %v", d.queue.queued)
	}
}

// A failed photo tried again queues a render, so it spends the rate too,
// on either route; an upload refused for its quota spends none.
func TestUploadRateCountsRetries(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{QuotaPhotos: 1})
	d.withUploadRate(limiter(t), guidepost.Rate{Name: "upload", Count: 3, Period: time.Hour})
	data := distinct(t, 1)
	res, err := d.svc.Upload(ctx, input(t, alice, data, ""))
	if err != nil {
		t.Fatal(err)
	}
	fail := func() {
		t.Helper()
		if err := gsql.NewMedia(d.db).Fail(ctx, res.ID, "gave_up", "we gave up", d.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	fail()
	if again, err := d.svc.Upload(ctx, input(t, alice, data, "")); err != nil || again.ID != res.ID || again.Outcome != media.Accepted {
		t.Fatalf("retry: %+v %v", again, err)
	}
	_, err = d.svc.Upload(ctx, input(t, alice, distinct(t, 2), ""))
	wantCode(t, err, guidepost.EQUOTA, "")
	fail()
	retried, err := d.upload(alice, data)
	if err != nil || retried.ID != res.ID || retried.Outcome != media.Accepted {
		t.Fatalf("direct retry: %+v %v", retried, err)
	}
	fail()
	_, err = d.svc.StartUpload(ctx, declare(alice, data, "image/jpeg"))
	wantCode(t, err, guidepost.ERATELIMITED, "")
	_, err = d.svc.Upload(ctx, input(t, alice, data, ""))
	wantCode(t, err, guidepost.ERATELIMITED, "")
}

// A direct upload retrying a failed photo never touches the photo's
// original until its bytes have proved to be the photo's: bytes that are
// not (a JPEG still, but other bytes under the same declaration) are
// refused, and the original the photo was accepted with stays as it was.
func TestDirectRetryNeverOverwritesTheOriginal(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 200_000)
	res, err := d.upload(alice, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := gsql.NewMedia(d.db).Fail(ctx, res.ID, "gave_up", "we gave up", d.clock.Now()); err != nil {
		t.Fatal(err)
	}
	other := bytes.Clone(data)
	for i := len(photo(t, "photo.jpg")); i < len(other); i++ {
		other[i] ^= 0xff
	}
	tk := d.start(declare(alice, data, "image/jpeg"))
	if !tk.Retry || tk.Key == media.OriginalKey(res.ID) {
		t.Fatalf("a retry writing in place: %+v", tk.Upload)
	}
	d.sendAll(tk, other)
	_, err = d.svc.CompleteUpload(ctx, tk.ID, alice)
	wantCode(t, err, guidepost.EUNPROCESSABLE, "sha256")
	if !bytes.Equal(d.original(res.ID), data) {
		t.Fatal("the original was overwritten by bytes that are not the photo's")
	}
	if v, _ := d.svc.Get(ctx, res.ID, alice); v.Status != media.StatusFailed {
		t.Fatalf("the photo was retried with the wrong bytes: %s", v.Status)
	}
	d.wantNoKey(tk.Key)

	tk = d.start(declare(alice, data, "image/jpeg"))
	d.sendAll(tk, data)
	again, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if err != nil || again.ID != res.ID || again.Outcome != media.Accepted || again.Status != media.StatusPending {
		t.Fatalf("the right bytes: %+v %v", again, err)
	}
	if !bytes.Equal(d.original(res.ID), data) {
		t.Fatal("the original is not the photo's bytes")
	}
	d.wantNoKey(tk.Key)
}

func (d *direct) wantNoKey(key string) {
	d.t.Helper()
	if ok, err := d.s3.Exists(context.Background(), key); ok || err != nil {
		d.t.Fatalf("%s is still stored (%v)", key, err)
	}
}

type noPurgeQueue struct{}

func (noPurgeQueue) EnqueueAccountPurge(context.Context, string) error { return nil }

// Deleting an account ends its direct uploads first: a part URL handed out
// before takes no more bytes once the purge has run, and nothing of the
// uploads stays in the store.
func TestDeletingAnAccountAbortsItsUploads(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 6<<20)
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.put(tk.Send[0], data, tk.PartSize, -1)
	joined := d.start(declare(alice, distinct(t, 1), "image/jpeg"))
	d.sendAll(joined, distinct(t, 1))
	parts, _ := d.s3.ListParts(ctx, joined.Key, joined.StoreID)
	if err := d.s3.CompleteMultipart(ctx, joined.Key, joined.StoreID, parts); err != nil { // a complete call that died
		t.Fatal(err)
	}
	kept := d.start(declare(bob, distinct(t, 2), "image/jpeg"))

	accounts := deletion.New(deletion.Deps{Store: gsql.NewAccounts(d.db), Photos: d.svc, Queue: noPurgeQueue{}, Clock: d.clock})
	if err := accounts.Delete(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if err := accounts.Purge(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if code, _ := d.tryPut(tk.Send[1], data, tk.PartSize, -1); code == http.StatusOK {
		t.Fatal("a part URL took bytes after the account was purged")
	}
	if n := d.openUploads(); n != 1 {
		t.Fatalf("%d uploads open, want bob's alone", n)
	}
	if keys := d.objectKeys(); len(keys) != 0 {
		t.Fatalf("objects left: %v", keys)
	}
	if st, err := d.svc.UploadStatus(ctx, kept.ID, bob); err != nil || st.State != media.UploadOpen {
		t.Fatalf("another account's upload: %+v %v", st.Upload, err)
	}
}

func (d *direct) objectKeys() []string {
	var keys []string
	d.s3.List(context.Background(), "", func(o media.Object) error { keys = append(keys, o.Key); return nil })
	return keys
}
