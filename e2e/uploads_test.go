package e2e

// Direct uploads end to end: the real binary serves the API and the worker;
// the test PUTs parts to the presigned S3 URLs itself, as a phone would.

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

type uploadPart struct {
	Number  int32             `json:"number"`
	Bytes   int64             `json:"bytes"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	ETag    string            `json:"etag"`
}

type uploadDoc struct {
	ID       string       `json:"id"`
	State    string       `json:"state"`
	PartSize int64        `json:"part_size"`
	Parts    []uploadPart `json:"parts"`
	Received []uploadPart `json:"received"`
	Media    *mediaDoc    `json:"media"`
}

// call sends a JSON request and decodes a 2xx answer into out; it returns
// the status and the raw body.
func (c *mediaClient) call(method, path string, body any, out any) (int, []byte) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 300 && out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return resp.StatusCode, raw
}

func declaration(data []byte, contentType string) map[string]any {
	sum := sha256.Sum256(data)
	return map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(sum[:]), "content_type": contentType}
}

// putPart PUTs a part's bytes; cut > 0 drops the connection after cut bytes.
func putPart(t *testing.T, p uploadPart, data []byte, partSize int64, cut int64) int {
	t.Helper()
	off := int64(p.Number-1) * partSize
	var body io.Reader = bytes.NewReader(data[off : off+p.Bytes])
	if cut > 0 {
		body = io.MultiReader(io.LimitReader(body, cut), failingReader{})
	}
	req, _ := http.NewRequest(http.MethodPut, p.URL, body)
	req.ContentLength = p.Bytes
	for k, v := range p.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection lost") }

// resume sends the missing parts and any held one whose ETag is not its MD5.
func resume(t *testing.T, u uploadDoc, data []byte) {
	t.Helper()
	send := u.Parts
	for _, p := range u.Received {
		off := int64(p.Number-1) * u.PartSize
		sum := md5.Sum(data[off : off+p.Bytes])
		if strings.Trim(p.ETag, `"`) != hex.EncodeToString(sum[:]) {
			send = append(send, p)
		}
	}
	for _, p := range send {
		if code := putPart(t, p, data, u.PartSize, 0); code != 200 {
			t.Fatalf("part %d: %d", p.Number, code)
		}
	}
}

// paddedJPEG is a real JPEG grown past several parts with bytes after its end.
func paddedJPEG(t *testing.T, size int) []byte {
	out := make([]byte, size)
	n := copy(out, testPhoto(t, "photo.jpg"))
	for i := n; i < size; i++ {
		out[i] = byte(i * 13)
	}
	return out
}

func TestDirectUploadThroughTheBinary(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	other := s.start("serve") // another API process: the state is in PostgreSQL
	c := newMediaClient(t, p.URL)

	// A 12 MB photo in three parts, cut off in the second, resumed through
	// the other process.
	data := paddedJPEG(t, 12<<20)
	var u uploadDoc
	if code, raw := c.call("POST", "/v1/uploads", declaration(data, "image/jpeg"), &u); code != 201 || len(u.Parts) != 3 {
		t.Fatalf("create: %d %s", code, raw)
	}
	putPart(t, u.Parts[0], data, u.PartSize, 0)
	putPart(t, u.Parts[1], data, u.PartSize, 3<<20)
	oc := &mediaClient{t: t, base: other.URL, token: c.token}
	var st uploadDoc
	if code, raw := oc.call("GET", "/v1/uploads/"+u.ID, nil, &st); code != 200 || len(st.Received) < 1 {
		t.Fatalf("status from the other process: %d %s", code, raw)
	}
	code, raw := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil)
	if code != 409 && code != 202 { // versitygw holds the cut part: completing may pass, and the worker fails it
		t.Fatalf("complete with a part missing: %d %s", code, raw)
	}
	if code == 409 && !strings.Contains(string(raw), `"field":"parts"`) {
		t.Fatalf("409 does not name the parts: %s", raw)
	}
	if code == 202 {
		t.Fatal("completed with a cut part") // the third part was never sent
	}
	resume(t, st, data)
	var m mediaDoc
	if code, raw := oc.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, &m); code != 202 || m.Status != "pending" {
		t.Fatalf("complete: %d %s", code, raw)
	}
	if done := c.waitDone(m.ID, 60*time.Second); done.Status != "ready" || done.Width != 640 {
		t.Fatalf("the photo: %+v", done)
	}
	if code, _ := c.call("POST", "/v1/uploads", declaration(data, "image/jpeg"), &m); code != 200 {
		t.Fatalf("the same bytes again: %d", code)
	}

	// A wrong SHA-256 fails the photo with a reason.
	small := testPhoto(t, "photo.png")
	decl := declaration(small, "image/png")
	decl["sha256"] = strings.Repeat("0", 64)
	c.call("POST", "/v1/uploads", decl, &u)
	resume(t, u, small)
	c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, &m)
	if done := c.waitDone(m.ID, photoDone); done.Status != "failed" || done.Failure == nil || !strings.Contains(*done.Failure, "SHA-256") {
		t.Fatalf("wrong SHA-256: %+v", done)
	}

	// A lying type is 415 and leaves nothing; DELETE aborts.
	html := testPhoto(t, "page.html")
	c.call("POST", "/v1/uploads", declaration(html, "image/jpeg"), &u)
	resume(t, u, html)
	if code, raw := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil); code != 415 {
		t.Fatalf("HTML declared a JPEG: %d %s", code, raw)
	}
	webp := testPhoto(t, "photo.webp")
	c.call("POST", "/v1/uploads", declaration(webp, "image/webp"), &u)
	if code, _ := c.call("DELETE", "/v1/uploads/"+u.ID, nil, nil); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	if code, _ := c.call("POST", "/v1/uploads/"+u.ID+"/complete", nil, nil); code != 404 {
		t.Fatalf("complete after delete: %d", code)
	}
	if n := openUploads(t, s.s3); n != 0 {
		t.Fatalf("%d uploads left open", n)
	}
	for _, k := range s.objects() {
		derivative := strings.HasPrefix(k, "media/") &&
			(strings.HasSuffix(k, ".jpg") || strings.HasSuffix(k, ".webp") || strings.HasSuffix(k, ".avif"))
		if !strings.HasPrefix(k, "originals/") && !derivative {
			t.Fatalf("unexpected object %s", k)
		}
	}
}

func openUploads(t *testing.T, cfg objstore.Config) int {
	n := 0
	err := objstore.New(cfg).ListMultipart(context.Background(), "", func(media.OpenUpload) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The sweeper in the worker aborts an upload left open past UPLOAD_TTL.
func TestDirectUploadAbandonedIsSwept(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev", "UPLOAD_TTL=2s")
	c := newMediaClient(t, p.URL)
	data := paddedJPEG(t, 6<<20)
	var u uploadDoc
	c.call("POST", "/v1/uploads", declaration(data, "image/jpeg"), &u)
	putPart(t, u.Parts[0], data, u.PartSize, 0)
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, raw := c.call("GET", "/v1/uploads/"+u.ID, nil, &u)
		if code == 200 && u.State == "aborted" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the abandoned upload is still there: %d %s", code, raw)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := openUploads(t, s.s3); n != 0 {
		t.Fatalf("the store still holds %d uploads", n)
	}
	// The sweep logs its tally once it has gone through every upload,
	// which may be just after the row above changed.
	for logged := time.Now().Add(5 * time.Second); !strings.Contains(p.Output(), "uploads_aborted"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(logged) {
			t.Fatal("the sweep was not logged")
		}
	}
}
