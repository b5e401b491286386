package objstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// Parts declared with their SHA-256, through the package's own calls, on
// the S3 server we ship: the URL signs the checksum and says which header
// carries it; a PUT cut at 40 %, one with a byte changed and one without
// the header leave nothing; ListParts gives back the checksum verified;
// Complete with those checksums joins the object (versitygw refuses part
// checksums in a Complete unless Create named the algorithm).
func TestChecksummedPartsOnTheServerWeShip(t *testing.T) {
	ctx := context.Background()
	b := objstore.New(testkit.S3Config(t))
	const key, partSize = "originals/summed", 5 << 20
	body := bytes.Repeat([]byte("fedcba9876543210"), (partSize+4096)/16)
	chunks := [][]byte{body[:partSize], body[partSize:]}
	want := make([]media.Part, len(chunks))
	for i, c := range chunks {
		sum := sha256.Sum256(c)
		want[i] = media.Part{Number: int32(i + 1), Size: int64(len(c)), SHA256: hex.EncodeToString(sum[:])}
	}
	id, err := b.CreateMultipart(ctx, key, "image/jpeg", true)
	if err != nil {
		t.Fatal(err)
	}
	urls := make([]string, len(want))
	headers := make([]map[string]string, len(want))
	for i, p := range want {
		if urls[i], headers[i], err = b.PresignPart(ctx, key, id, p, time.Minute); err != nil {
			t.Fatal(err)
		}
		sum, _ := hex.DecodeString(p.SHA256)
		if len(headers[i]) != 1 || headers[i]["x-amz-checksum-sha256"] != base64.StdEncoding.EncodeToString(sum) {
			t.Fatalf("part %d: the headers to send are %v", p.Number, headers[i])
		}
	}
	listed := func() []media.Part {
		parts, err := b.ListParts(ctx, key, id)
		if err != nil {
			t.Fatal(err)
		}
		return parts
	}
	testkit.CutPut(t, urls[0], chunks[0], len(chunks[0])*4/10, headers[0])
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if parts := listed(); len(parts) != 0 {
			t.Fatalf("a part cut at 40%% was kept: %+v", parts)
		}
	}
	altered := bytes.Clone(chunks[0])
	altered[len(altered)/2] ^= 1
	if code := testkit.PutPart(urls[0], altered, headers[0]); code != http.StatusBadRequest && code != 0 {
		t.Fatalf("a part with one byte changed: %d", code)
	}
	if code := testkit.PutPart(urls[0], chunks[0], nil); code != http.StatusForbidden && code != 0 {
		t.Fatalf("a part without the signed header: %d", code)
	}
	if parts := listed(); len(parts) != 0 {
		t.Fatalf("a refused PUT left a part: %+v", parts)
	}
	for i := range chunks {
		if code := testkit.PutPart(urls[i], chunks[i], headers[i]); code != http.StatusOK {
			t.Fatalf("part %d: %d", i+1, code)
		}
	}
	parts := listed()
	if len(parts) != 2 || parts[0].SHA256 != want[0].SHA256 || parts[1].SHA256 != want[1].SHA256 || parts[1].Size != want[1].Size {
		t.Fatalf("listed %+v, want the declared sizes and checksums %+v", parts, want)
	}
	if err := b.CompleteMultipart(ctx, key, id, parts); err != nil {
		t.Fatal(err)
	}
	r, size, err := b.ReadFrom(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || size != int64(len(body)) || !bytes.Equal(got, body) {
		t.Fatalf("the joined object: %d bytes of %d, %v", len(got), size, err)
	}
}
