package objstore_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// Presigned URLs name S3_PUBLIC_ENDPOINT, the address a phone reaches the
// store at, and work there: signing is bound to the host, so they are
// signed for it, while every other call goes to the internal endpoint.
func TestPresignedURLsNameThePublicEndpoint(t *testing.T) {
	ctx := context.Background()
	cfg := testkit.S3Config(t)
	internal, _ := url.Parse(cfg.Endpoint)
	cfg.PublicEndpoint = "http://localhost:" + internal.Port() // another name for the same server
	b := objstore.New(cfg)
	body := []byte("a photo's bytes")
	if err := b.Put(ctx, "media/p/web.jpg", bytes.NewReader(body), int64(len(body)), "image/jpeg", ""); err != nil {
		t.Fatal(err)
	}
	get, err := b.PresignGet(ctx, "media/p/web.jpg", time.Minute)
	if err != nil || !strings.HasPrefix(get, cfg.PublicEndpoint+"/") {
		t.Fatalf("presigned GET %q, %v", get, err)
	}
	resp, err := http.Get(get)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, body) {
		t.Fatalf("GET at the public endpoint: %d %q", resp.StatusCode, got)
	}
	id, err := b.CreateMultipart(ctx, "originals/p", "image/jpeg", false)
	if err != nil {
		t.Fatal(err)
	}
	part, _, _ := b.PresignPart(ctx, "originals/p", id, media.Part{Number: 1, Size: int64(len(body))}, time.Minute)
	if !strings.HasPrefix(part, cfg.PublicEndpoint+"/") {
		t.Fatalf("part URL %q", part)
	}
	if code, _ := put(t, part, body); code != 200 {
		t.Fatalf("PUT at the public endpoint: %d", code)
	}
	// The same URL with its host swapped back is refused: the signature
	// names the host, which is why a second signer is needed at all.
	if code, _ := put(t, strings.Replace(part, "localhost", "127.0.0.1", 1), body); code != http.StatusForbidden {
		t.Fatalf("a URL signed for the public host answered %d at the internal one", code)
	}
}
