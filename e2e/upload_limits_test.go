package e2e

// One accounting of uploads through the real binary: the quotas and the
// upload rate hold for direct uploads as for POST /v1/media, with the same
// problem types, and a file grown in S3 behind the API's back is refused.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// uniqueJPEG is a real JPEG made distinct by its last bytes.
func uniqueJPEG(t *testing.T, i int) []byte {
	return append(testPhoto(t, "photo.jpg"), byte(i), byte(i>>8), 0xd9)
}

// direct runs a direct upload as far as it goes: create, the parts, complete.
// It returns the first answer that was not a success, or the complete's.
func (c *mediaClient) direct(data []byte) (int, mediaProblem) {
	c.t.Helper()
	var u uploadDoc
	code, raw := c.call("POST", "/v1/uploads", declaration(data, "image/jpeg"), &u)
	if code != 201 {
		return code, problemOf(c.t, raw)
	}
	resume(c.t, u, data)
	code, raw = c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil)
	if code != 202 {
		return code, problemOf(c.t, raw)
	}
	return code, mediaProblem{}
}

func problemOf(t *testing.T, raw []byte) mediaProblem {
	var p mediaProblem
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("not a problem: %s", raw)
	}
	return p
}

func TestDirectUploadsHoldTheRateAndTheQuota(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev", "QUOTA_PHOTOS=4", "RATE_UPLOADS_PER_USER=3/1h")

	// The rate: of 8 direct uploads from one guest, 3 are accepted; the
	// others are refused as POST /v1/media refuses one.
	c := newMediaClient(t, p.URL)
	accepted := 0
	var refusal mediaProblem
	for i := range 8 {
		switch code, prob := c.direct(uniqueJPEG(t, i)); code {
		case 202:
			accepted++
		case 429:
			refusal = prob
		default:
			t.Fatalf("direct upload %d: %d %+v", i, code, prob)
		}
	}
	if accepted != 3 || refusal.Type != "/problems/rate_limited" {
		t.Fatalf("%d direct uploads accepted under a rate of 3; refusal %+v", accepted, refusal)
	}
	r := c.upload(map[string][]byte{"p.jpg": uniqueJPEG(t, 100)}, "")
	if r.status != 429 || r.problem.Type != refusal.Type || r.header.Get("Retry-After") == "" {
		t.Fatalf("POST /v1/media after the direct uploads spent the rate: %d %+v", r.status, r.problem)
	}

	// The quota, with another guest on a process whose rate leaves room:
	// a photo sent through POST /v1/media and an upload open fill a quota
	// of 2 for both routes.
	q := s.start("serve", "QUOTA_PHOTOS=2", "RATE_UPLOADS_PER_USER=100/1h")
	g := newMediaClient(t, q.URL)
	if r := g.upload(map[string][]byte{"p.jpg": uniqueJPEG(t, 200)}, ""); r.status != 202 {
		t.Fatalf("first photo: %d %+v", r.status, r.problem)
	}
	var open uploadDoc
	openData := uniqueJPEG(t, 201)
	if code, raw := g.call("POST", "/v1/uploads", declaration(openData, "image/jpeg"), &open); code != 201 {
		t.Fatalf("an upload within the quota: %d %s", code, raw)
	}
	code, raw := g.call("POST", "/v1/uploads", declaration(uniqueJPEG(t, 202), "image/jpeg"), nil)
	quota := problemOf(t, raw)
	if code != 403 || quota.Type != "/problems/quota_exceeded" {
		t.Fatalf("a direct upload past the quota: %d %s", code, raw)
	}
	r = g.upload(map[string][]byte{"p.jpg": uniqueJPEG(t, 203)}, "")
	if r.status != 403 || r.problem.Type != quota.Type {
		t.Fatalf("POST /v1/media with the quota taken by an open upload: %d %+v", r.status, r.problem)
	}
	resume(t, open, openData)
	if code, raw := g.call("POST", "/v1/uploads/"+open.ID+"/complete", nil, nil); code != 202 {
		t.Fatalf("completing the upload the quota held room for: %d %s", code, raw)
	}
	if n := s.count(`SELECT count(*) FROM media WHERE owner_id = (SELECT owner_id FROM uploads WHERE id = $1)`, open.ID); n != 2 {
		t.Fatalf("%d photos stored under a quota of 2", n)
	}
}

// A file grown in S3 after its parts arrived (here rewritten with the
// store's own credentials) is refused on completion, and nothing of it
// stays: no object, no parts, no row.
func TestDirectUploadGrownInTheStoreIsRefused(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("serve")
	c := newMediaClient(t, p.URL)
	data := uniqueJPEG(t, 1)
	var u uploadDoc
	if code, raw := c.call("POST", "/v1/uploads", declaration(data, "image/jpeg"), &u); code != 201 {
		t.Fatalf("create: %d %s", code, raw)
	}
	resume(t, u, data)
	ctx := context.Background()
	store := objstore.New(s.s3)
	var up media.OpenUpload
	store.ListMultipart(ctx, "", func(o media.OpenUpload) error { up = o; return nil })
	parts, err := store.ListParts(ctx, up.Key, up.UploadID)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CompleteMultipart(ctx, up.Key, up.UploadID, parts); err != nil {
		t.Fatal(err)
	}
	grown := append(bytes.Clone(data), make([]byte, 256<<10)...)
	sum := sha256.Sum256(grown)
	if err := store.Put(ctx, up.Key, bytes.NewReader(grown), int64(len(grown)), "image/jpeg", hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	code, raw := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil)
	if prob := problemOf(t, raw); code != 422 || len(prob.Errors) == 0 || prob.Errors[0].Field != "bytes" {
		t.Fatalf("completing a grown file: %d %s", code, raw)
	}
	if keys := s.objects(); len(keys) != 0 {
		t.Fatalf("objects left: %v", keys)
	}
	if n := openUploads(t, s.s3); n != 0 || s.rows() != 0 {
		t.Fatalf("%d uploads open, %d rows", n, s.rows())
	}
	if code, _ := c.call("GET", "/v1/uploads/"+u.ID, nil, &u); code != 200 || u.State != "aborted" {
		t.Fatalf("the refused upload: %d %s", code, u.State)
	}
}
