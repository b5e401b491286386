package objstore_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

func TestPutGetListDeleteOnTheRealServer(t *testing.T) {
	ctx := context.Background()
	b := objstore.New(testkit.S3Config(t))
	body := []byte("a photo's bytes")
	if err := b.Put(ctx, "media/x/original", bytes.NewReader(body), int64(len(body)), "image/jpeg", ""); err != nil {
		t.Fatal(err)
	}
	rc, size, err := b.Get(ctx, "media/x/original")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, body) || size != int64(len(body)) {
		t.Fatalf("got %q (%d bytes)", got, size)
	}
	var keys []string
	if err := b.List(ctx, "media/", func(o media.Object) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "media/x/original" {
		t.Fatalf("listed %v", keys)
	}
	url, err := b.PresignGet(ctx, "media/x/original", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, body) {
		t.Fatalf("presigned GET: %d %q", resp.StatusCode, got)
	}
	if err := b.Delete(ctx, "media/x/original"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Exists(ctx, "media/x/original"); ok || err != nil {
		t.Fatalf("exists after delete: %v %v", ok, err)
	}
	if err := b.Delete(ctx, "media/x/original"); err != nil {
		t.Fatalf("deleting twice must be fine: %v", err)
	}
	if _, _, err := b.Get(ctx, "media/x/original"); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("missing key: %v", err)
	}
}

// A bucket that does not exist means the store is misconfigured or not
// ready: callers must retry, never conclude that a photo is gone.
func TestMissingBucketIsUnavailableNotNotFound(t *testing.T) {
	cfg := testkit.S3Config(t)
	cfg.Bucket = "no-such-bucket-" + strings.ToLower(t.Name())[:8]
	_, _, err := objstore.New(cfg).Get(context.Background(), "media/x/original")
	if guidepost.ErrorCode(err) != guidepost.EUNAVAILABLE {
		t.Fatalf("want unavailable, got %v", err)
	}
}

// A stopped server fails fast: the upload path answers 503 at once.
func TestStoppedServerFailsFast(t *testing.T) {
	srv := testkit.StartS3(t)
	b := objstore.New(srv.Config)
	srv.Stop()
	start := time.Now()
	err := b.Put(context.Background(), "k", bytes.NewReader([]byte("x")), 1, "image/jpeg", "")
	if guidepost.ErrorCode(err) != guidepost.EUNAVAILABLE {
		t.Fatalf("want unavailable, got %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("took %s to fail", took)
	}
}
