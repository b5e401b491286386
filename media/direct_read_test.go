package media_test

import (
	"context"
	"io"
	"sync/atomic"
	"testing"

	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// countingReads counts the GETs a probe makes.
type countingReads struct {
	*objstore.S3
	reads atomic.Int32
}

func (c *countingReads) ReadFrom(ctx context.Context, key string, off int64) (io.ReadCloser, int64, error) {
	c.reads.Add(1)
	return c.S3.ReadFrom(ctx, key, off)
}

// commented grows a JPEG with n comment segments of 60 KB after its start
// marker: the probe, which walks every marker to the end to count scans,
// has to cross them all.
func commented(data []byte, n int) []byte {
	out := append([]byte{}, data[:2]...)
	for i := range n {
		const l = 60 << 10
		out = append(out, 0xFF, 0xFE, byte((l+2)>>8), byte((l+2)&0xFF))
		for j := range l {
			out = append(out, byte('a'+(i+j)%26))
		}
	}
	return append(out, data[2:]...)
}

// Completing probes the object as POST /v1/media probes a body, through
// one streaming GET: not one request per 64 KB (a 4 MB photo took sixty).
func TestDirectCompleteReadsTheObjectInOneGo(t *testing.T) {
	d := newDirect(t, media.Config{})
	store := &countingReads{S3: d.s3}
	d.svc = d.service(media.Config{}, store)
	data := commented(photo(t, "orient-6.jpg"), 20)
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.sendAll(tk, data)
	res, err := d.svc.CompleteUpload(context.Background(), tk.ID, alice)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != media.Accepted || res.Width != 240 || res.Height != 160 {
		t.Fatalf("completed: %+v", res)
	}
	if n := store.reads.Load(); n > 2 {
		t.Fatalf("%d GETs to probe a %d-byte photo", n, len(data))
	}
}
