package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// withPartSums adds each part's SHA-256, in parts of partSize, to a
// declaration.
func withPartSums(decl map[string]any, data []byte, partSize int) map[string]any {
	var sums []string
	for off := 0; off < len(data); off += partSize {
		sum := sha256.Sum256(data[off:min(off+partSize, len(data))])
		sums = append(sums, hex.EncodeToString(sum[:]))
	}
	decl["part_size"], decl["part_sha256"] = partSize, sums
	return decl
}

// Direct uploads with each part's SHA-256 declared, through the binary and
// the S3 server we ship: each part URL signs its checksum; a part cut at
// 40 % on a raw TCP connection and a part of wrong bytes are not kept, so
// GET lists them to send; complete is a 409 problem naming them, with no
// photo row; sent again, the upload completes and the photo renders.
func TestDirectUploadPartChecksumsThroughTheBinary(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	c := newMediaClient(t, p.URL)
	const partSize = 5 << 20
	data := paddedJPEG(t, 12<<20)
	var u uploadDoc
	if code, raw := c.call("POST", "/v1/uploads", withPartSums(declaration(data, "image/jpeg"), data, partSize), &u); code != 201 || len(u.Parts) != 3 {
		t.Fatalf("create: %d %s", code, raw)
	}
	for _, pt := range u.Parts {
		off := int(pt.Number-1) * partSize
		sum := sha256.Sum256(data[off : off+int(pt.Bytes)])
		if len(pt.Headers) != 1 || pt.Headers["x-amz-checksum-sha256"] != base64.StdEncoding.EncodeToString(sum[:]) {
			t.Fatalf("part %d: headers %v", pt.Number, pt.Headers)
		}
	}
	if code := putPart(t, u.Parts[0], data, partSize, 0); code != 200 {
		t.Fatalf("part 1: %d", code)
	}
	testkit.CutPut(t, u.Parts[1].URL, data[partSize:2*partSize], partSize*4/10, u.Parts[1].Headers)
	if code := testkit.PutPart(u.Parts[2].URL, bytes.Repeat([]byte("x"), int(u.Parts[2].Bytes)), u.Parts[2].Headers); code == 200 {
		t.Fatal("part 3 of wrong bytes was taken")
	}
	var st uploadDoc
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if code, raw := c.call("GET", "/v1/uploads/"+u.ID, nil, &st); code != 200 || len(st.Received) != 1 || len(st.Parts) != 2 {
			t.Fatalf("after a cut part and a wrong one: %d %s", code, raw)
		}
	}
	code, raw := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil)
	if prob := problemOf(t, raw); code != 409 || len(prob.Errors) != 1 || prob.Errors[0].Field != "parts" ||
		prob.Errors[0].Code != "incomplete" || prob.Errors[0].Message != "missing: 2, 3" {
		t.Fatalf("complete with parts 2 and 3 missing: %d %s", code, raw)
	}
	if n := s.rows(); n != 0 {
		t.Fatalf("a refused complete left %d photo rows", n)
	}
	resume(t, st, data)
	var m mediaDoc
	if code, raw := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, &m); code != 202 || m.Status != "pending" {
		t.Fatalf("complete: %d %s", code, raw)
	}
	if done := c.waitDone(m.ID, 60*time.Second); done.Status != "ready" || done.Width != 640 || done.Bytes != int64(len(data)) {
		t.Fatalf("the photo: %+v", done)
	}
}

// Without part checksums, a part the store holds at another size than
// declared (here put there with the store's own credentials) is refused
// at complete through the binary, 409 naming parts[1], with no photo row
// and the upload still open; sent again, it completes.
func TestDirectUploadPartOfAnotherSizeThroughTheBinary(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	c := newMediaClient(t, p.URL)
	data := paddedJPEG(t, 7<<20)
	var u uploadDoc
	if code, raw := c.call("POST", "/v1/uploads", declaration(data, "image/jpeg"), &u); code != 201 || len(u.Parts) != 2 {
		t.Fatalf("create: %d %s", code, raw)
	}
	ctx := context.Background()
	store := objstore.New(s.s3)
	var up media.OpenUpload
	store.ListMultipart(ctx, "", func(o media.OpenUpload) error { up = o; return nil })
	short, _, err := store.PresignPart(ctx, up.Key, up.UploadID, media.Part{Number: 1, Size: 3 << 20}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if code := testkit.PutPart(short, data[:3<<20], nil); code != 200 {
		t.Fatalf("a short part 1: %d", code)
	}
	putPart(t, u.Parts[1], data, u.PartSize, 0)
	code, raw := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil)
	if prob := problemOf(t, raw); code != 409 || len(prob.Errors) != 2 || prob.Errors[1].Field != "parts[1]" || prob.Errors[1].Code != "mismatch" {
		t.Fatalf("complete with a short part 1: %d %s", code, raw)
	}
	if n := s.rows(); n != 0 {
		t.Fatalf("a refused complete left %d photo rows", n)
	}
	var st uploadDoc
	if code, raw := c.call("GET", "/v1/uploads/"+u.ID, nil, &st); code != 200 || st.State != "open" || len(st.Parts) != 1 || st.Parts[0].Number != 1 {
		t.Fatalf("after the refused complete: %d %s", code, raw)
	}
	resume(t, st, data)
	if code, raw := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil); code != 202 {
		t.Fatalf("complete: %d %s", code, raw)
	}
}
