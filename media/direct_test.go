package media_test

// Direct uploads on the real stack: PostgreSQL for the upload and photo
// rows, the versitygw S3 server for the parts, plain HTTP PUTs to the
// presigned URLs as a phone sends them. Only the queue is the in-memory one
// (the e2e test runs the real worker).

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
	gsql "github.com/guidepost/guidepost/sql"
)

type direct struct {
	t     *testing.T
	svc   *media.Service
	db    *gsql.DB
	s3    *objstore.S3
	queue *fakeQueue
	clock *clock
	sent  int64 // bytes PUT to the store, cut-off ones included

	cfg     media.Config
	limiter media.Limiter
}

func newDirect(t *testing.T, cfg media.Config) *direct {
	db := testkit.DB(t)
	d := &direct{t: t, db: db, s3: objstore.New(testkit.S3Config(t)), clock: &clock{now: time.Now()},
		queue: &fakeQueue{queued: map[string]int{}, states: map[string]media.TaskState{}}}
	for _, id := range []string{alice, bob} {
		err := gsql.NewUsers(db).CreateUser(context.Background(), auth.User{ID: id, DisplayName: id[len(id)-1:], Guest: true, CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
	}
	d.cfg = cfg
	d.svc = d.service(cfg, d.s3)
	return d
}

// withUploadRate rebuilds the service counting each account's uploads
// against r in l.
func (d *direct) withUploadRate(l media.Limiter, r guidepost.Rate) {
	d.limiter, d.cfg.UploadRate = l, r
	d.svc = d.service(d.cfg, d.s3)
}

func (d *direct) service(cfg media.Config, store media.Multipart) *media.Service {
	return media.New(media.Deps{
		Store: gsql.NewMedia(d.db), Keys: gsql.NewIdempotencyKeys(d.db), Blobs: d.s3, Queue: d.queue, Clock: d.clock,
		Uploads: gsql.NewUploads(d.db), Multipart: store, Limiter: d.limiter,
	}, cfg)
}

func declare(owner string, data []byte, contentType string) media.NewUpload {
	sum := sha256.Sum256(data)
	return media.NewUpload{OwnerID: owner, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), ContentType: contentType}
}

func (d *direct) start(in media.NewUpload) media.UploadTicket {
	d.t.Helper()
	res, err := d.svc.StartUpload(context.Background(), in)
	if err != nil {
		d.t.Fatal(err)
	}
	if res.Outcome != media.UploadStarted {
		d.t.Fatalf("outcome %s", res.Outcome)
	}
	return res.Ticket
}

// put sends part p of data, cut off after `cut` bytes when cut >= 0, as a
// connection dropping mid-part. It returns the status (0 when cut).
func (d *direct) put(p media.PartURL, data []byte, partSize int64, cut int64) int {
	d.t.Helper()
	code, err := d.tryPut(p, data, partSize, cut)
	if err != nil && cut < 0 {
		d.t.Fatal(err)
	}
	return code
}

func (d *direct) tryPut(p media.PartURL, data []byte, partSize int64, cut int64) (int, error) {
	off := int64(p.Number-1) * partSize
	body := io.Reader(bytes.NewReader(data[off : off+p.Bytes]))
	if cut >= 0 {
		body = io.MultiReader(io.LimitReader(body, cut), errReader{})
	}
	counted := &countingReader{r: body, n: &d.sent, closed: make(chan struct{})}
	req, _ := http.NewRequest(http.MethodPut, p.URL, counted)
	req.ContentLength = p.Bytes
	for k, v := range p.Header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	// The transport may still be reading the body after Do returns (a
	// server that answers before the body ends); it always closes it last.
	<-counted.closed
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (d *direct) sendAll(t media.UploadTicket, data []byte) {
	d.t.Helper()
	for _, p := range t.Send {
		if code := d.put(p, data, t.PartSize, -1); code != http.StatusOK {
			d.t.Fatalf("part %d: %d", p.Number, code)
		}
	}
}

// resume sends what a ticket says is missing, and every held part whose
// ETag is not the MD5 of the client's own part (see media.UploadTicket).
func (d *direct) resume(t media.UploadTicket, data []byte) {
	d.t.Helper()
	for _, p := range t.Held {
		off := int64(p.Number-1) * t.PartSize
		sum := md5.Sum(data[off : off+p.Bytes])
		if strings.Trim(p.ETag, `"`) != hex.EncodeToString(sum[:]) {
			t.Send = append(t.Send, p)
		}
	}
	d.sendAll(t, data)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("the network went away") }

type countingReader struct {
	r      io.Reader
	n      *int64
	once   sync.Once
	closed chan struct{}
}

func (c *countingReader) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// padded is a real JPEG grown to size with bytes after its end marker,
// which decoders ignore: a large photo without a large fixture.
func padded(t *testing.T, size int) []byte {
	data := photo(t, "photo.jpg")
	out := make([]byte, size)
	copy(out, data)
	for i := len(data); i < size; i++ {
		out[i] = byte(i * 7)
	}
	return out
}

func (d *direct) original(id string) []byte {
	d.t.Helper()
	rc, _, err := d.s3.Get(context.Background(), media.OriginalKey(id))
	if err != nil {
		d.t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return b
}

func (d *direct) openUploads() int {
	n := 0
	d.s3.ListMultipart(context.Background(), "", func(media.OpenUpload) error { n++; return nil })
	return n
}

func TestDirectUploadWholeFlow(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := photo(t, "orient-6.jpg")
	tk := d.start(declare(alice, data, "image/jpeg"))
	if len(tk.Send) != 1 || tk.Send[0].Bytes != int64(len(data)) || tk.PartSize != 5<<20 || len(tk.Held) != 0 {
		t.Fatalf("ticket %+v", tk)
	}
	if _, err := d.svc.UploadStatus(ctx, tk.ID, bob); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("another user's upload must be not found: %v", err)
	}
	d.sendAll(tk, data)
	st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil || len(st.Send) != 0 || len(st.Held) != 1 {
		t.Fatalf("status after sending: %+v %v", st, err)
	}
	res, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != media.Accepted || res.Status != media.StatusPending || res.ContentType != "image/jpeg" ||
		res.Width != 240 || res.Height != 160 || res.OriginalURL == "" || d.queue.queued[res.ID] != 1 {
		t.Fatalf("completed: %+v, queued %v", res, d.queue.queued)
	}
	if !bytes.Equal(d.original(res.ID), data) {
		t.Fatal("the original is not the bytes sent")
	}
	again, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if err != nil || again.ID != res.ID || !again.Replayed || d.queue.queued[res.ID] != 1 {
		t.Fatalf("completing twice: %+v %v", again, err)
	}
	st, err = d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil || st.State != media.UploadCompleted || st.Photo == nil || st.Photo.ID != res.ID {
		t.Fatalf("status once completed: %+v %v", st, err)
	}
	dup, err := d.svc.StartUpload(ctx, declare(alice, data, "image/jpeg"))
	if err != nil || dup.Outcome != media.Duplicate || dup.Existing.ID != res.ID {
		t.Fatalf("the same bytes again: %+v %v", dup, err)
	}
	if err := d.svc.Derive(ctx, media.DeriveTask{MediaID: res.ID}); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.svc.Get(ctx, res.ID, alice); v.Status != media.StatusReady || v.Width != 240 {
		t.Fatalf("derived: %+v", v.Media)
	}
	if d.openUploads() != 0 {
		t.Fatal("an upload stayed open")
	}
}

// A client cut off at 60 % of a 20 MB upload asks what arrived and sends
// only the rest: at most the part in flight is sent twice.
func TestDirectUploadResumesAfterACut(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	const size = 20_000_000
	data := padded(t, size)
	tk := d.start(declare(alice, data, "image/jpeg"))
	if len(tk.Send) != 4 {
		t.Fatalf("%d parts", len(tk.Send))
	}
	cutAt := int64(size * 6 / 10)
	for _, p := range tk.Send {
		left := cutAt - d.sent
		if left >= p.Bytes {
			d.put(p, data, tk.PartSize, -1)
			continue
		}
		if code := d.put(p, data, tk.PartSize, left); code == http.StatusOK {
			t.Fatal("a cut part was stored")
		}
		break
	}
	if d.sent != cutAt {
		t.Fatalf("sent %d before the cut, want %d", d.sent, cutAt)
	}
	st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	// S3 holds parts 1 and 2; versitygw also lists the cut part 3, at its
	// full size but with the MD5 of the bytes it got as its ETag.
	if len(st.Held) < 2 || st.Held[0].Number != 1 || st.Held[1].Number != 2 || st.Send[len(st.Send)-1].Number != 4 {
		t.Fatalf("after the cut: held %+v, to send %+v", st.Held, st.Send)
	}
	d.resume(st, data)
	resent := d.sent - size
	t.Logf("resume: %d bytes sent for a %d-byte upload cut at 60%%: %d bytes (%.1f%%) sent twice, part size %d",
		d.sent, size, resent, 100*float64(resent)/size, tk.PartSize)
	if resent > tk.PartSize {
		t.Fatalf("%d bytes sent twice, more than one part", resent)
	}
	res, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if err != nil || res.Outcome != media.Accepted || res.Bytes != size {
		t.Fatalf("%+v %v", res, err)
	}
	if !bytes.Equal(d.original(res.ID), data) {
		t.Fatal("the joined original differs from the bytes sent")
	}
}

// Completing with a part missing names it, changes nothing, and the
// upload can still be finished.
func TestDirectUploadMissingPartIsNamed(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 11<<20)
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.put(tk.Send[1], data, tk.PartSize, -1)
	_, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	wantCode(t, err, guidepost.ECONFLICT, "parts")
	if msg := guidepost.ErrorFields(err)[0].Message; msg != "missing: 1, 3" {
		t.Fatalf("named %q", msg)
	}
	st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil || st.State != media.UploadOpen || len(st.Send) != 2 {
		t.Fatalf("after a refused complete: %+v %v", st, err)
	}
	d.sendAll(st, data)
	if res, err := d.svc.CompleteUpload(ctx, tk.ID, alice); err != nil || res.Outcome != media.Accepted {
		t.Fatalf("%+v %v", res, err)
	}
}

// The worker checks the bytes against the declared SHA-256: a wrong one
// fails the photo with words its owner understands.
func TestDirectUploadWrongSHA256FailsThePhoto(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := photo(t, "photo.jpg")
	in := declare(alice, data, "image/jpeg")
	in.SHA256 = strings.Repeat("ab", 32)
	tk := d.start(in)
	d.sendAll(tk, data)
	res, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	err = d.svc.Derive(ctx, media.DeriveTask{MediaID: res.ID})
	if !media.IsPermanent(err) || media.FailureReason(err) != "checksum_mismatch" {
		t.Fatalf("derive: %v", err)
	}
	v, _ := d.svc.Get(ctx, res.ID, alice)
	if v.Status != media.StatusFailed || !strings.Contains(v.Failure, "do not match the SHA-256") {
		t.Fatalf("%+v", v.Media)
	}
	// The same declaration again: a re-upload can help (the bytes may have
	// changed on the way), so it is a retry of the failed photo; its bytes
	// are hashed before they replace the original, and these do not match.
	again := d.start(in)
	if !again.Retry || again.MediaID != res.ID {
		t.Fatalf("not a retry of the failed photo: %+v", again.Upload)
	}
	d.sendAll(again, data)
	_, err = d.svc.CompleteUpload(ctx, again.ID, alice)
	wantCode(t, err, guidepost.EUNPROCESSABLE, "sha256")
	// The right hash: a photo of its own.
	right := d.start(declare(alice, data, "image/jpeg"))
	if right.Retry {
		t.Fatal("the right hash retried the wrong one")
	}
}

// The type is judged from the bytes: a declared type that is not the
// file's is refused, and what arrived is deleted.
func TestDirectUploadLyingContentType(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	for name, c := range map[string]struct{ file, declared, field string }{
		"a JPEG declared PNG": {"photo.jpg", "image/png", "content_type"},
		"HTML declared JPEG":  {"page.html", "image/jpeg", "file"},
		"SVG declared PNG":    {"image.svg", "image/png", "file"},
	} {
		t.Run(name, func(t *testing.T) {
			data := photo(t, c.file)
			tk := d.start(declare(alice, data, c.declared))
			d.sendAll(tk, data)
			_, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
			wantCode(t, err, guidepost.EUNSUPPORTED, c.field)
			if ok, _ := d.s3.Exists(ctx, tk.Key); ok {
				t.Fatal("the refused object was kept")
			}
			if st, _ := d.svc.UploadStatus(ctx, tk.ID, alice); st.State != media.UploadAborted {
				t.Fatalf("state %s", st.State)
			}
		})
	}
	_, err := d.svc.StartUpload(ctx, declare(alice, []byte("x"), "image/svg+xml"))
	wantCode(t, err, guidepost.EUNSUPPORTED, "content_type")
	big := declare(alice, []byte("x"), "image/jpeg")
	big.Bytes = 25<<20 + 1
	_, err = d.svc.StartUpload(ctx, big)
	wantCode(t, err, guidepost.ETOOLARGE, "bytes")
	_, err = d.svc.StartUpload(ctx, media.NewUpload{OwnerID: alice, Bytes: 10, SHA256: "nope", ContentType: "image/jpeg"})
	wantCode(t, err, guidepost.EINVALID, "sha256")
	if d.openUploads() != 0 {
		t.Fatal("a refused declaration opened an upload")
	}
}

// A part URL past its expiry is refused by the store; GET hands out a
// fresh one. The upload itself expires after TTL.
func TestDirectUploadExpiredURLAndUpload(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{Direct: media.DirectConfig{URLTTL: time.Second, TTL: time.Hour}})
	data := photo(t, "photo.png")
	tk := d.start(declare(alice, data, "image/png"))
	time.Sleep(2100 * time.Millisecond) // presigned expiry has one-second resolution
	if code := d.put(tk.Send[0], data, tk.PartSize, -1); code != http.StatusForbidden {
		t.Fatalf("an expired URL answered %d", code)
	}
	st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	d.sendAll(st, data)

	late := d.start(declare(alice, photo(t, "photo.webp"), "image/webp"))
	d.clock.Add(time.Hour)
	_, err = d.svc.CompleteUpload(ctx, late.ID, alice)
	wantCode(t, err, guidepost.ENOTFOUND, "")
	if res, err := d.svc.CompleteUpload(ctx, tk.ID, alice); err == nil {
		t.Fatalf("an expired upload completed: %+v", res)
	}
}

func TestDirectUploadAbort(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 6<<20)
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.put(tk.Send[0], data, tk.PartSize, -1)
	if err := d.svc.AbortUpload(ctx, tk.ID, bob); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("bob aborted alice's upload: %v", err)
	}
	if err := d.svc.AbortUpload(ctx, tk.ID, alice); err != nil {
		t.Fatal(err)
	}
	if err := d.svc.AbortUpload(ctx, tk.ID, alice); err != nil {
		t.Fatalf("aborting twice: %v", err)
	}
	if d.openUploads() != 0 {
		t.Fatal("the store still holds the parts")
	}
	_, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	wantCode(t, err, guidepost.ENOTFOUND, "")
	// The store may refuse the part with a status or by closing the
	// connection mid-body; either way it must not take it.
	if code, _ := d.tryPut(tk.Send[1], data, tk.PartSize, -1); code == http.StatusOK {
		t.Fatal("a part was taken after the abort")
	}
}

// Nothing abandoned stays stored: uploads open past TTL, store uploads
// with no row, and an object joined by a complete call that died before
// its row.
func TestSweeperAbortsAbandonedUploads(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{Direct: media.DirectConfig{TTL: time.Hour}})
	data := padded(t, 6<<20)
	open := d.start(declare(alice, data, "image/jpeg"))
	d.put(open.Send[0], data, open.PartSize, -1)

	died := d.start(declare(bob, data, "image/jpeg"))
	d.sendAll(died, data)
	parts, _ := d.s3.ListParts(ctx, died.Key, died.StoreID)
	if err := d.s3.CompleteMultipart(ctx, died.Key, died.StoreID, parts); err != nil {
		t.Fatal(err)
	}
	if _, err := d.s3.CreateMultipart(ctx, "media/no-row/original", "image/jpeg", false); err != nil {
		t.Fatal(err)
	}
	kept := d.start(declare(alice, photo(t, "photo.png"), "image/png"))

	if r, err := d.svc.Sweep(ctx); err != nil || r.UploadsAborted != 0 {
		t.Fatalf("a sweep before TTL aborted %d: %v", r.UploadsAborted, err)
	}
	d.clock.Add(time.Hour + 2*time.Minute)
	r, err := d.svc.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.UploadsAborted != 4 || d.openUploads() != 0 {
		t.Fatalf("aborted %d, %d still open", r.UploadsAborted, d.openUploads())
	}
	if ok, _ := d.s3.Exists(ctx, died.Key); ok {
		t.Fatal("an object joined without a row was kept")
	}
	for _, tk := range []media.UploadTicket{open, died, kept} {
		u, err := gsql.NewUploads(d.db).GetUpload(ctx, tk.ID)
		if err != nil || u.State != media.UploadAborted {
			t.Fatalf("%s: %s %v", tk.ID, u.State, err)
		}
	}
	// A day later the rows go too: they counted towards the day's bytes.
	d.clock.Add(25 * time.Hour)
	if _, err := d.svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := gsql.NewUploads(d.db).GetUpload(ctx, open.ID); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("an old aborted upload's row stayed: %v", err)
	}
}

// The per-account limit holds when creates race: the counts are read under
// a per-owner lock.
func TestDirectUploadOpenLimitUnderRacingCreates(t *testing.T) {
	d := newDirect(t, media.Config{Direct: media.DirectConfig{MaxOpen: 3}})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		data := append(photo(t, "photo.jpg"), byte(i)) // distinct bytes, distinct photos
		wg.Go(func() { _, errs[i] = d.svc.StartUpload(context.Background(), declare(alice, data, "image/jpeg")) })
	}
	wg.Wait()
	ok := admitted(t, errs, guidepost.ECONFLICT)
	if ok != 3 || d.openUploads() != 3 {
		t.Fatalf("%d uploads opened, %d held by the store, want 3", ok, d.openUploads())
	}
}

func TestDirectUploadLimitsAndIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{Direct: media.DirectConfig{MaxOpen: 2, DayBytes: 12 << 20}})
	names := []string{"photo.jpg", "photo.png", "photo.webp"}
	var ids []string
	for _, n := range names[:2] {
		ids = append(ids, d.start(declare(alice, photo(t, n), "image/jpeg")).ID)
	}
	_, err := d.svc.StartUpload(ctx, declare(alice, photo(t, names[2]), "image/webp"))
	wantCode(t, err, guidepost.ECONFLICT, "uploads")
	if err := d.svc.AbortUpload(ctx, ids[0], alice); err != nil {
		t.Fatal(err)
	}
	big := declare(alice, padded(t, 12<<20), "image/jpeg")
	_, err = d.svc.StartUpload(ctx, big)
	wantCode(t, err, guidepost.ECONFLICT, "bytes")

	in := declare(bob, photo(t, "photo.jpg"), "image/jpeg")
	in.IdempotencyKey = "k-1"
	first, err := d.svc.StartUpload(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.svc.StartUpload(ctx, in)
	if err != nil || !again.Replayed || again.Ticket.ID != first.Ticket.ID || len(again.Ticket.Send) != 1 {
		t.Fatalf("replay: %+v %v", again, err)
	}
	other := declare(bob, photo(t, "photo.png"), "image/png")
	other.IdempotencyKey = "k-1"
	_, err = d.svc.StartUpload(ctx, other)
	wantCode(t, err, guidepost.EUNPROCESSABLE, "Idempotency-Key")
}

// A client that trusts the held list as it stands completes with versitygw's
// cut part inside: the worker's SHA-256 check fails that photo rather than
// showing a damaged one. (On S3 the cut part is simply missing.)
func TestDirectUploadCutPartNeverBecomesAPhoto(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 8<<20)
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.put(tk.Send[0], data, tk.PartSize, 1<<20)
	st, _ := d.svc.UploadStatus(ctx, tk.ID, alice)
	d.sendAll(st, data) // no ETag check
	res, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	err = d.svc.Derive(ctx, media.DeriveTask{MediaID: res.ID})
	switch {
	case err == nil && !bytes.Equal(d.original(res.ID), data):
		t.Fatal("a damaged original became a ready photo")
	case err != nil && media.FailureReason(err) != "checksum_mismatch":
		t.Fatalf("derive: %v", err)
	}
}

// Of several complete calls at once, one completes; the others are told
// to retry or see the photo it made. One photo, one task.
func TestDirectUploadConcurrentCompletes(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := photo(t, "photo.jpg")
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.sendAll(tk, data)
	var wg sync.WaitGroup
	results := make([]media.UploadResult, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Go(func() { results[i], errs[i] = d.svc.CompleteUpload(ctx, tk.ID, alice) })
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, err := range errs {
		switch {
		case err == nil:
			ids[results[i].ID] = true
		case guidepost.ErrorCode(err) != guidepost.ECONFLICT:
			t.Fatalf("complete %d: %v", i, err)
		}
	}
	d.queue.mu.Lock()
	defer d.queue.mu.Unlock()
	if len(ids) != 1 || len(d.queue.queued) != 1 {
		t.Fatalf("photos %v, queued %v", ids, d.queue.queued)
	}
}
