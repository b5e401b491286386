package objstore_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// put sends body to a presigned part URL as a phone would: a plain PUT, no
// checksum headers.
func put(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("ETag")
}

// What direct uploads rely on, checked against the S3 server we ship with:
// presigned part PUTs, ListParts reporting what is held, Complete from the
// listed ETags, ranged reads, listing and aborting open uploads.
func TestPresignedMultipartOnTheRealServer(t *testing.T) {
	ctx := context.Background()
	b := objstore.New(testkit.S3Config(t))
	const key, partSize = "media/m/original", 5 << 20
	id, err := b.CreateMultipart(ctx, key, "image/jpeg", false)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("0123456789abcdef"), (2*partSize+1000)/16)
	chunks := [][]byte{body[:partSize], body[partSize : 2*partSize], body[2*partSize:]}
	for i, c := range chunks[:2] { // the third is "cut off"
		url, _, err := b.PresignPart(ctx, key, id, media.Part{Number: int32(i + 1), Size: int64(len(c))}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if code, etag := put(t, url, c); code != 200 || etag == "" {
			t.Fatalf("part %d: %d, etag %q", i+1, code, etag)
		}
	}
	parts, err := b.ListParts(ctx, key, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Number != 1 || parts[1].Size != partSize || parts[0].ETag == "" {
		t.Fatalf("listed %+v", parts)
	}
	url, _, _ := b.PresignPart(ctx, key, id, media.Part{Number: 3, Size: int64(len(chunks[2]))}, time.Minute)
	if code, _ := put(t, url, chunks[2][:100]); code < 400 {
		t.Fatalf("a body shorter than the signed size was taken: %d", code)
	}
	if code, _ := put(t, url, chunks[2]); code != 200 {
		t.Fatalf("part 3: %d", code)
	}
	var open []media.OpenUpload
	if err := b.ListMultipart(ctx, "media/", func(o media.OpenUpload) error { open = append(open, o); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 || open[0].UploadID != id || open[0].Key != key || time.Since(open[0].Initiated) > time.Hour {
		t.Fatalf("open uploads %+v", open)
	}
	parts, _ = b.ListParts(ctx, key, id)
	if err := b.CompleteMultipart(ctx, key, id, parts); err != nil {
		t.Fatal(err)
	}
	if size, etag, err := b.Stat(ctx, key); err != nil || size != int64(len(body)) || etag == "" {
		t.Fatalf("size %d, etag %q, %v", size, etag, err)
	}
	for _, off := range []int64{partSize - 3, int64(len(body)) - 2} {
		r, total, err := b.ReadFrom(ctx, key, off)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, body[off:]) || total != int64(len(body)) {
			t.Fatalf("reading from %d: %d bytes of %d, %v", off, len(got), total, err)
		}
	}
	if _, err := b.ListParts(ctx, key, id); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("a completed upload must be gone: %v", err)
	}
}

func TestAbortAndExpiredPartURL(t *testing.T) {
	ctx := context.Background()
	b := objstore.New(testkit.S3Config(t))
	const key = "media/a/original"
	id, err := b.CreateMultipart(ctx, key, "image/png", false)
	if err != nil {
		t.Fatal(err)
	}
	url, _, _ := b.PresignPart(ctx, key, id, media.Part{Number: 1, Size: 3}, time.Second)
	time.Sleep(2100 * time.Millisecond) // a URL's expiry has one-second resolution
	if code, _ := put(t, url, []byte("abc")); code != http.StatusForbidden {
		t.Fatalf("an expired part URL answered %d", code)
	}
	if err := b.AbortMultipart(ctx, key, id); err != nil {
		t.Fatal(err)
	}
	if err := b.AbortMultipart(ctx, key, id); err != nil {
		t.Fatalf("aborting twice must be fine: %v", err)
	}
	if _, err := b.ListParts(ctx, key, id); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("an aborted upload must be gone: %v", err)
	}
	n := 0
	b.ListMultipart(ctx, "", func(media.OpenUpload) error { n++; return nil })
	if n != 0 {
		t.Fatalf("%d uploads still open after abort", n)
	}
}
