package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/guidepost/guidepost/tools/internal/s3env"
)

// storeFloor is the direct upload's floor: the S3 calls that create and
// complete cannot do without, made with the AWS SDK straight to the store
// guidepost uses, from the same uploaders under the same PUT load. Create
// is CreateMultipartUpload; complete is ListParts, CompleteMultipartUpload
// and one ranged GET of the header. What guidepost adds on top (auth, the
// rate and quota checks, the rows, the probe, the enqueue) is the ratio.
type storeFloor struct {
	client   *s3.Client
	presign  *s3.PresignClient
	bucket   string
	partSize int64
	whole    bool     // -floor-read whole: read the object to its end, as guidepost's JPEG probe does
	keys     sync.Map // objects to delete after a level
	calls    stepClock
}

// newStoreFloor reads the store from the server's own variables (S3_*),
// with the same defaults as guidepost's config.
func newStoreFloor(partSize int64, whole bool) *storeFloor {
	client := s3env.Client()
	return &storeFloor{client: client, presign: s3.NewPresignClient(client),
		bucket: s3env.Bucket(), partSize: partSize, whole: whole}
}

var floorSeq atomic.Uint64

// upload is one direct upload's store calls; the part PUTs go through
// presigned URLs over hc, as a phone's do, and are not counted.
func (f *storeFloor) upload(hc *http.Client, data []byte) (create, complete time.Duration, ok bool) {
	ctx := context.Background()
	key := fmt.Sprintf("uploadbench-floor/%d-%d", time.Now().UnixNano(), floorSeq.Add(1))
	t0 := time.Now()
	mp, err := f.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &f.bucket, Key: &key,
		ContentType: aws.String("image/jpeg")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor create:", err)
		return 0, 0, false
	}
	create = time.Since(t0)
	f.calls.add("s3_create", create)
	for n, off := int32(1), int64(0); off < int64(len(data)); n, off = n+1, off+f.partSize {
		end := min(off+f.partSize, int64(len(data)))
		req, err := f.presign.PresignUploadPart(ctx, &s3.UploadPartInput{Bucket: &f.bucket, Key: &key,
			UploadId: mp.UploadId, PartNumber: aws.Int32(n)}, s3.WithPresignExpires(time.Hour))
		if err != nil || call(hc, "PUT", req.URL, "", bytes.NewReader(data[off:end]), nil) != http.StatusOK {
			fmt.Fprintln(os.Stderr, "floor part:", err)
			return 0, 0, false
		}
	}
	t1 := time.Now()
	ok = f.complete(ctx, key, mp.UploadId)
	complete = time.Since(t1)
	if ok {
		f.keys.Store(key, true)
	}
	return create, complete, ok
}

// complete is what guidepost's complete asks of the store: the parts as
// stored, the object assembled, and its header read once.
func (f *storeFloor) complete(ctx context.Context, key string, id *string) bool {
	t0 := time.Now()
	parts, err := f.client.ListParts(ctx, &s3.ListPartsInput{Bucket: &f.bucket, Key: &key, UploadId: id})
	f.calls.add("s3_list_parts", time.Since(t0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor list parts:", err)
		return false
	}
	var done []types.CompletedPart
	for _, p := range parts.Parts {
		done = append(done, types.CompletedPart{ETag: p.ETag, PartNumber: p.PartNumber})
	}
	t0 = time.Now()
	if _, err := f.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &f.bucket, Key: &key,
		UploadId: id, MultipartUpload: &types.CompletedMultipartUpload{Parts: done}}); err != nil {
		fmt.Fprintln(os.Stderr, "floor complete:", err)
		return false
	}
	f.calls.add("s3_complete", time.Since(t0))
	t0 = time.Now()
	rng := "bytes=0-65535" // the header, as much as guidepost's first chunk
	if f.whole {
		rng = "bytes=0-"
	}
	head, err := f.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &f.bucket, Key: &key, Range: &rng})
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor header:", err)
		return false
	}
	defer head.Body.Close()
	_, err = io.Copy(io.Discard, head.Body)
	f.calls.add("s3_get", time.Since(t0))
	return err == nil
}

// sweep deletes what a level stored, 8 at a time, outside the timings.
func (f *storeFloor) sweep() {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	f.keys.Range(func(k, _ any) bool {
		key := k.(string)
		f.keys.Delete(k)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f.client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &f.bucket, Key: &key})
		})
		return true
	})
	wg.Wait()
}
