package objstore_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// What the S3 server we ship stores of a part PUT cut at 40 %: versitygw
// 1.8 lists it at its full size (zero-filled past the cut) with the MD5
// of the bytes it got as its ETag, where S3 keeps nothing. A part URL
// that signs the part's SHA-256 (x-amz-checksum-sha256) closes the gap:
// the cut part is not kept, a wrong body of the right size is refused,
// and a PUT without the header is refused. If versitygw changes either
// behaviour, this test says so.
func TestACutPartOnTheServerWeShip(t *testing.T) {
	ctx := context.Background()
	cfg := testkit.S3Config(t)
	b := objstore.New(cfg)
	const key, size = "originals/cut", 5 << 20
	body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	cut := size * 4 / 10

	id, err := b.CreateMultipart(ctx, key, "image/jpeg", false)
	if err != nil {
		t.Fatal(err)
	}
	plain, _, _ := b.PresignPart(ctx, key, id, media.Part{Number: 1, Size: size}, time.Minute)
	testkit.CutPut(t, plain, body, cut, nil)
	got := md5.Sum(body[:cut])
	held := waitParts(t, func() int {
		parts, _ := b.ListParts(ctx, key, id)
		if len(parts) == 1 && parts[0].Size == size && strings.Trim(parts[0].ETag, `"`) == hex.EncodeToString(got[:]) {
			return 1
		}
		return len(parts)
	})
	t.Logf("plain URL, cut at 40%%: %d part listed at full size with the MD5 of the bytes received", held)

	c := b.Client()
	out, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &cfg.Bucket, Key: aws.String(key + "-sum"), ChecksumAlgorithm: "SHA256"})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	b64 := base64.StdEncoding.EncodeToString(sum[:])
	req, err := s3.NewPresignClient(c).PresignUploadPart(ctx, &s3.UploadPartInput{Bucket: &cfg.Bucket, Key: aws.String(key + "-sum"),
		UploadId: out.UploadId, PartNumber: aws.Int32(1), ContentLength: aws.Int64(size), ChecksumSHA256: &b64}, s3.WithPresignExpires(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	testkit.CutPut(t, req.URL, body, cut, map[string]string{"x-amz-checksum-sha256": b64})
	send := func(data []byte, withSum bool) int {
		r, _ := http.NewRequest("PUT", req.URL, bytes.NewReader(data))
		if withSum {
			r.Header.Set("x-amz-checksum-sha256", b64)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			return 0 // the server refused before the body ended and reset the connection
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	list := func() []int64 {
		lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: &cfg.Bucket, Key: aws.String(key + "-sum"), UploadId: out.UploadId})
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int64
		for _, p := range lp.Parts {
			sizes = append(sizes, aws.ToInt64(p.Size))
		}
		return sizes
	}
	// The plain cut part was listed within milliseconds; this one must
	// not appear at all.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if sizes := list(); len(sizes) != 0 {
			t.Fatalf("with a signed checksum the cut part was kept: %v", sizes)
		}
	}
	if code := send(bytes.Repeat([]byte("x"), size), true); code != http.StatusBadRequest && code != 0 {
		t.Fatalf("a wrong body of the right size: %d", code)
	}
	if code := send(body, false); code != http.StatusForbidden && code != 0 {
		t.Fatalf("a PUT without the signed header: %d", code)
	}
	if len(list()) != 0 {
		t.Fatalf("a refused PUT left a part: %v", list())
	}
	if code := send(body, true); code != http.StatusOK || len(list()) != 1 {
		t.Fatalf("the whole part: %d %v", code, list())
	}
}

// waitParts polls what the server lists until it shows the one cut part,
// for a few seconds (the server stores the cut body when it notices the
// connection is gone).
func waitParts(t *testing.T, parts func() int) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := parts()
		if n == 1 || time.Now().After(deadline) {
			if n != 1 {
				t.Fatalf("the cut part is not listed as versitygw 1.8 lists it (%d parts): has the server changed?", n)
			}
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}
