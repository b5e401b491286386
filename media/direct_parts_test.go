package media_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

// declareParts is declare with each part's SHA-256, in parts of partSize.
func declareParts(owner string, data []byte, contentType string, partSize int64) media.NewUpload {
	in := declare(owner, data, contentType)
	in.PartSize = partSize
	for off := int64(0); off < int64(len(data)); off += partSize {
		sum := sha256.Sum256(data[off:min(off+partSize, int64(len(data)))])
		in.PartSHA256 = append(in.PartSHA256, hex.EncodeToString(sum[:]))
	}
	return in
}

// numbers lists the part numbers of ps.
func numbers(ps []media.PartURL) []int32 {
	out := make([]int32, len(ps))
	for i, p := range ps {
		out[i] = p.Number
	}
	return out
}

// noPhoto fails unless the owner has no photo of data's bytes.
func (d *direct) noPhoto(owner string, data []byte) {
	d.t.Helper()
	sum := sha256.Sum256(data)
	if m, err := gsql.NewMedia(d.db).BySHA256(context.Background(), owner, hex.EncodeToString(sum[:])); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		d.t.Fatalf("a refused complete left a photo row: %+v %v", m, err)
	}
}

// With each part's SHA-256 declared, on the S3 server we ship: every part
// URL signs its checksum, so a part cut at 40 % and a part with one byte
// changed are refused by the store and reported missing; completing then
// is 409 naming them, with nothing joined and no photo row; sent again
// whole, the upload completes with exactly the bytes declared.
func TestDirectUploadDeclaredPartChecksums(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 11<<20)
	tk := d.start(declareParts(alice, data, "image/jpeg", 5<<20))
	if len(tk.Send) != 3 || tk.PartSize != 5<<20 || len(tk.PartSHA256) != 3 {
		t.Fatalf("ticket %+v", tk.Upload)
	}
	for _, p := range tk.Send {
		if len(p.Header) != 1 || p.Header["x-amz-checksum-sha256"] == "" {
			t.Fatalf("part %d signs %v", p.Number, p.Header)
		}
	}
	if code := d.put(tk.Send[0], data, tk.PartSize, -1); code != http.StatusOK {
		t.Fatalf("part 1: %d", code)
	}
	d.put(tk.Send[1], data, tk.PartSize, tk.Send[1].Bytes*4/10)
	altered := bytes.Clone(data[2*tk.PartSize:])
	altered[100] ^= 1
	if code := testkit.PutPart(tk.Send[2].URL, altered, tk.Send[2].Header); code == http.StatusOK {
		t.Fatal("a part with a byte changed was taken")
	}
	// versitygw keeps a cut part it was not asked to check within
	// milliseconds (TestACutPartOnTheServerWeShip): give it a second.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
		if err != nil {
			t.Fatal(err)
		}
		if got := numbers(st.Held); len(got) != 1 || got[0] != 1 || len(st.Send) != 2 {
			t.Fatalf("after a cut and an altered part: held %v, to send %v", got, numbers(st.Send))
		}
	}
	_, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if guidepost.ErrorCode(err) != guidepost.ECONFLICT || guidepost.ErrorFields(err)[0].Message != "missing: 2, 3" {
		t.Fatalf("complete with parts 2 and 3 refused by the store: %v %+v", err, guidepost.ErrorFields(err))
	}
	d.noPhoto(alice, data)
	st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil || st.State != media.UploadOpen {
		t.Fatalf("after a refused complete: %+v %v", st.Upload, err)
	}
	d.sendAll(st, data)
	res, err := d.svc.CompleteUpload(ctx, tk.ID, alice)
	if err != nil || res.Outcome != media.Accepted || res.Bytes != int64(len(data)) {
		t.Fatalf("%+v %v", res, err)
	}
	if !bytes.Equal(d.original(res.ID), data) {
		t.Fatal("the joined original differs from the bytes declared")
	}
}

// A part the store holds with another SHA-256 than the declared one (sent
// through a URL signed for other bytes) is reported missing, and
// completing names it, parts[2], as a mismatch. Sent again, it completes.
func TestDirectUploadPartWithAnotherChecksumIsNamed(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 8<<20)
	tk := d.start(declareParts(alice, data, "image/jpeg", 5<<20))
	d.put(tk.Send[0], data, tk.PartSize, -1)
	other := bytes.Repeat([]byte{7}, int(tk.Send[1].Bytes))
	sum := sha256.Sum256(other)
	url, hdr, err := d.s3.PresignPart(ctx, tk.Key, tk.StoreID, media.Part{Number: 2, Size: int64(len(other)), SHA256: hex.EncodeToString(sum[:])}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if code := testkit.PutPart(url, other, hdr); code != http.StatusOK {
		t.Fatalf("the other bytes, signed as such: %d", code)
	}
	st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil || len(st.Held) != 1 || len(st.Send) != 1 || st.Send[0].Number != 2 || st.Send[0].Fault == "" {
		t.Fatalf("held %v, to send %+v, %v", numbers(st.Held), st.Send, err)
	}
	_, err = d.svc.CompleteUpload(ctx, tk.ID, alice)
	fields := guidepost.ErrorFields(err)
	if guidepost.ErrorCode(err) != guidepost.ECONFLICT || len(fields) != 2 || fields[0].Field != "parts" ||
		fields[1].Field != "parts[2]" || fields[1].Code != guidepost.FMISMATCH || !strings.Contains(fields[1].Message, "SHA-256") {
		t.Fatalf("complete: %v %+v", err, fields)
	}
	d.noPhoto(alice, data)
	d.sendAll(st, data)
	if res, err := d.svc.CompleteUpload(ctx, tk.ID, alice); err != nil || res.Outcome != media.Accepted {
		t.Fatalf("%+v %v", res, err)
	}
}

// Without declared checksums a part the store holds at another size than
// declared is still refused at complete, 409 naming parts[1], never a 202
// and then a failed photo; the upload stays open and completes once the
// part is sent again.
func TestDirectUploadPartOfAnotherSizeIsNamed(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 8<<20)
	tk := d.start(declare(alice, data, "image/jpeg"))
	if len(tk.Send[0].Header) != 0 {
		t.Fatalf("a part of an upload without checksums signs %v", tk.Send[0].Header)
	}
	short := data[:4<<20]
	url, _, err := d.s3.PresignPart(ctx, tk.Key, tk.StoreID, media.Part{Number: 1, Size: int64(len(short))}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if code := testkit.PutPart(url, short, nil); code != http.StatusOK {
		t.Fatalf("a short part 1: %d", code)
	}
	d.put(tk.Send[1], data, tk.PartSize, -1)
	_, err = d.svc.CompleteUpload(ctx, tk.ID, alice)
	fields := guidepost.ErrorFields(err)
	if guidepost.ErrorCode(err) != guidepost.ECONFLICT || len(fields) != 2 || fields[1].Field != "parts[1]" ||
		fields[1].Code != guidepost.FMISMATCH || !strings.Contains(fields[1].Message, "4194304 bytes arrived where 5242880") {
		t.Fatalf("complete: %v %+v", err, fields)
	}
	d.noPhoto(alice, data)
	st, err := d.svc.UploadStatus(ctx, tk.ID, alice)
	if err != nil || st.State != media.UploadOpen || len(st.Send) != 1 || st.Send[0].Number != 1 {
		t.Fatalf("after a refused complete: %+v %v", st, err)
	}
	d.sendAll(st, data)
	if res, err := d.svc.CompleteUpload(ctx, tk.ID, alice); err != nil || res.Outcome != media.Accepted {
		t.Fatalf("%+v %v", res, err)
	}
	if !bytes.Equal(d.original(tk.MediaID), data) {
		t.Fatal("the joined original differs from the bytes declared")
	}
}

// The declared layout is checked before anything is opened; a part size of
// the client's own cuts the parts; an upload of the same file declared
// with other parts is not returned as the open twin, the same declaration
// is; an Idempotency-Key reused with other part checksums is a mismatch.
func TestDirectUploadDeclaredPartsAreChecked(t *testing.T) {
	ctx := context.Background()
	d := newDirect(t, media.Config{})
	data := padded(t, 11<<20)
	in := declareParts(alice, data, "image/jpeg", 5<<20)
	for field, bad := range map[string]func(*media.NewUpload){
		"part_sha256":    func(in *media.NewUpload) { in.PartSHA256 = in.PartSHA256[:2] },
		"part_sha256[1]": func(in *media.NewUpload) { in.PartSHA256[1] = "nope" },
		"part_size":      func(in *media.NewUpload) { in.PartSize = 1 << 20 },
	} {
		c := in
		c.PartSHA256 = append([]string(nil), in.PartSHA256...)
		bad(&c)
		_, err := d.svc.StartUpload(ctx, c)
		wantCode(t, err, guidepost.EINVALID, field)
	}
	if d.openUploads() != 0 {
		t.Fatal("a refused declaration opened an upload")
	}
	six := declareParts(alice, data, "image/jpeg", 6<<20)
	tk := d.start(six)
	if tk.PartSize != 6<<20 || len(tk.Send) != 2 || tk.Send[1].Bytes != 5<<20 {
		t.Fatalf("parts of 6 MiB: %+v", tk.Send)
	}
	plain, err := d.svc.StartUpload(ctx, declare(alice, data, "image/jpeg"))
	if err != nil || plain.Outcome != media.UploadStarted || plain.Ticket.ID == tk.ID {
		t.Fatalf("the same file without part checksums: %s %v", plain.Outcome, err)
	}
	again, err := d.svc.StartUpload(ctx, six)
	if err != nil || again.Outcome != media.UploadResumed || again.Ticket.ID != tk.ID || len(again.Ticket.Send[0].Header) != 1 {
		t.Fatalf("the same declaration again: %s %+v %v", again.Outcome, again.Ticket.Upload, err)
	}
	keyed := declareParts(bob, data, "image/jpeg", 5<<20)
	keyed.IdempotencyKey = "parts-1"
	if _, err := d.svc.StartUpload(ctx, keyed); err != nil {
		t.Fatal(err)
	}
	if replay, err := d.svc.StartUpload(ctx, keyed); err != nil || !replay.Replayed {
		t.Fatalf("replay: %+v %v", replay, err)
	}
	keyed.PartSHA256 = declareParts(bob, data, "image/jpeg", 6<<20).PartSHA256
	keyed.PartSize = 6 << 20
	_, err = d.svc.StartUpload(ctx, keyed)
	wantCode(t, err, guidepost.EUNPROCESSABLE, "Idempotency-Key")
}
