package e2e

// Photo uploads end to end: the real binary against PostgreSQL, Redis and an
// S3 server. Every test gets its own database, bucket and private Redis, so
// the tests run in parallel without one test's worker taking another's
// tasks.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

type mediaStack struct {
	t     *testing.T
	dbURL string
	s3    objstore.Config
	redis *testkit.RedisServer
}

func newMediaStack(t *testing.T, s3 objstore.Config) *mediaStack {
	return &mediaStack{t: t, dbURL: testkit.DatabaseURL(t), s3: s3, redis: testkit.StartRedis(t)}
}

// start runs a guidepost subcommand; serve and dev get a port and are
// waited for. The sweeper runs every 300 ms and looks at photos pending for
// a second, so the outage tests finish in seconds.
func (s *mediaStack) start(cmd string, extra ...string) *testkit.Process {
	addr := ""
	if cmd != "worker" {
		addr = freeAddr(s.t)
	}
	return testkit.Start(s.t, s.env(extra...), addr, cmd)
}

// env is what start gives the binary, extra last.
func (s *mediaStack) env(extra ...string) []string {
	return append([]string{
		"DATABASE_URL=" + s.dbURL, "REDIS_URL=" + s.redis.URL,
		"S3_ENDPOINT=" + s.s3.Endpoint, "S3_BUCKET=" + s.s3.Bucket,
		"S3_ACCESS_KEY=" + s.s3.AccessKey, "S3_SECRET_KEY=" + s.s3.SecretKey,
		"LOG_FORMAT=json", "WORKER_CONCURRENCY=1", "JWT_SECRET=" + e2eJWTSecret,
		"MEDIA_SWEEP_INTERVAL=300ms", "MEDIA_PENDING_AGE=1s",
	}, extra...)
}

// rows counts media rows; objects counts objects in the bucket.
func (s *mediaStack) rows() int {
	s.t.Helper()
	return s.count(`SELECT count(*) FROM media`)
}

func (s *mediaStack) objects() []string {
	s.t.Helper()
	var keys []string
	err := objstore.New(s.s3).List(context.Background(), "", func(o media.Object) error {
		keys = append(keys, o.Key)
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return keys
}

type mediaDoc struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	ContentType string `json:"content_type"`
	Bytes       int64  `json:"bytes"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	SHA256      string `json:"sha256"`
	ThumbHash   *string
	URLs        struct {
		Web       *string `json:"web"`
		Thumbnail *string `json:"thumbnail"`
		Original  *string `json:"original"`
	} `json:"urls"`
	Failure     *string    `json:"failure"`
	ProcessedAt *time.Time `json:"processed_at"`
}

type mediaProblem struct {
	Type   string `json:"type"`
	Errors []struct {
		Field   string `json:"field"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"errors"`
}

type mediaReply struct {
	status  int
	header  http.Header
	doc     mediaDoc     // a 2xx answer
	problem mediaProblem // any other
	took    time.Duration
}

func (r *mediaReply) decode(body []byte) error {
	if r.status < 300 {
		return json.Unmarshal(body, &r.doc)
	}
	return json.Unmarshal(body, &r.problem)
}

type mediaClient struct {
	t     *testing.T
	base  string
	token string
}

func newMediaClient(t *testing.T, base string) *mediaClient {
	resp, err := http.Post(base+"/v1/auth/guest", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sess struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&sess); err != nil || sess.AccessToken == "" {
		t.Fatalf("guest: %d %v", resp.StatusCode, err)
	}
	return &mediaClient{t: t, base: base, token: sess.AccessToken}
}

// multipartBody builds a form with one file part per name (field "file"
// unless given as field=name).
func multipartBody(files map[string][]byte) (io.Reader, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for name, data := range files {
		field, filename, ok := strings.Cut(name, "=")
		if !ok {
			field, filename = "file", name
		}
		part, _ := w.CreateFormFile(field, filename)
		part.Write(data)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

func (c *mediaClient) send(req *http.Request) mediaReply {
	c.t.Helper()
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	r := mediaReply{status: resp.StatusCode, header: resp.Header, took: time.Since(start)}
	body, _ := io.ReadAll(resp.Body)
	if err := r.decode(body); err != nil {
		c.t.Fatalf("%s %s: %d %q", req.Method, req.URL.Path, resp.StatusCode, body)
	}
	return r
}

func (c *mediaClient) upload(files map[string][]byte, key string) mediaReply {
	c.t.Helper()
	body, ctype := multipartBody(files)
	req, _ := http.NewRequest("POST", c.base+"/v1/media", body)
	req.Header.Set("Content-Type", ctype)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return c.send(req)
}

func (c *mediaClient) get(id string) mediaReply {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+"/v1/media/"+id, nil)
	return c.send(req)
}

// photoDone bounds a photo's wait for ready or failed in a test that does
// not time the worker: one attempt may end without an answer (the render
// child's wall clock, or S3's response-header timeout, both about 30 s on a
// machine busy with the whole suite), and asynq's first retry waits 15 to
// 45 s.
const photoDone = 2 * time.Minute

// waitDone polls until the photo is ready or failed.
func (c *mediaClient) waitDone(id string, limit time.Duration) mediaDoc {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		r := c.get(id)
		if r.doc.Status == "ready" || r.doc.Status == "failed" {
			return r.doc
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("media %s still %q after %s", id, r.doc.Status, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func testPhoto(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "testdata", "photos", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fetchJPEG downloads a derivative, checks it carries no metadata segment
// at all (no EXIF, no GPS, no comment), and decodes it.
func fetchJPEG(t *testing.T, url *string) image.Image {
	t.Helper()
	if url == nil {
		t.Fatal("no URL")
	}
	resp, err := http.Get(*url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET derivative: %d %s", resp.StatusCode, data)
	}
	for i := 2; i+4 <= len(data) && data[i] == 0xFF && data[i+1] != 0xDA; i += 2 + int(data[i+2])<<8 | int(data[i+3]) {
		if m := data[i+1]; m >= 0xE0 && m <= 0xEF || m == 0xFE {
			t.Fatalf("derivative carries metadata segment 0xFF%X", m)
		}
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func near(c color.Color, r, g, b uint8) bool {
	cr, cg, cb, _ := c.RGBA()
	d := func(x uint32, y uint8) bool { return int(x>>8)-int(y) < 40 && int(y)-int(x>>8) < 40 }
	return d(cr, r) && d(cg, g) && d(cb, b)
}

// Upload → 202 → poll → ready, for every format and every EXIF orientation;
// derivatives decode, are upright, sized right and carry no metadata.
func TestMediaUploadBecomesReady(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	c := newMediaClient(t, p.URL)
	names := []string{"photo.jpg", "photo.png", "photo.webp", "photo.heic", "gps.jpg", "p3.jpg", "polyglot.jpg", "corrupt.jpg"}
	for n := 1; n <= 8; n++ {
		names = append(names, fmt.Sprintf("orient-%d.jpg", n))
	}
	ids := map[string]string{}
	for _, name := range names {
		r := c.upload(map[string][]byte{name: testPhoto(t, name)}, "")
		if r.status != 202 || r.doc.Status != "pending" || r.doc.URLs.Web != nil || r.doc.URLs.Original == nil ||
			r.header.Get("Location") != "/v1/media/"+r.doc.ID {
			t.Fatalf("%s: %d %+v", name, r.status, r.doc)
		}
		ids[name] = r.doc.ID
	}
	for _, name := range names {
		m := c.waitDone(ids[name], photoDone)
		if name == "corrupt.jpg" {
			if m.Status != "failed" || m.Failure == nil || m.URLs.Web != nil {
				t.Fatalf("corrupt: %+v", m)
			}
			continue
		}
		if m.Status != "ready" || m.ThumbHash == nil || m.ProcessedAt == nil {
			t.Fatalf("%s: %+v", name, m)
		}
		web, thumb := fetchJPEG(t, m.URLs.Web), fetchJPEG(t, m.URLs.Thumbnail)
		if web.Bounds().Dx() != m.Width || web.Bounds().Dy() != m.Height || thumb.Bounds() != web.Bounds() {
			t.Errorf("%s: web %v, thumb %v, row %d×%d (small photos are never upscaled)", name, web.Bounds(), thumb.Bounds(), m.Width, m.Height)
		}
		if strings.HasPrefix(name, "orient-") {
			// Displayed: 240×160, red square top-left, blue elsewhere.
			if m.Width != 240 || m.Height != 160 || !near(web.At(15, 15), 255, 0, 0) || !near(web.At(200, 120), 0, 0, 255) {
				t.Errorf("%s: %d×%d, top-left %v, bottom-right %v", name, m.Width, m.Height, web.At(15, 15), web.At(200, 120))
			}
		}
	}
	// Display P3 (200,100,50) converted to sRGB is about (215,92,31);
	// untouched values would look washed out.
	p3 := fetchJPEG(t, c.get(ids["p3.jpg"]).doc.URLs.Web)
	if r, _, b, _ := p3.At(96, 32).RGBA(); r>>8 < 207 || b>>8 > 45 {
		t.Errorf("P3 patch not converted to sRGB: %v", p3.At(96, 32))
	}
	// Public read: no original for anyone but the owner.
	anon := &mediaClient{t: t, base: p.URL}
	if r := anon.get(ids["photo.jpg"]); r.status != 200 || r.doc.URLs.Original != nil || r.doc.URLs.Web == nil {
		t.Fatalf("anonymous read: %d %+v", r.status, r.doc)
	}
	if r := anon.get("0190a0a0-0000-7000-8000-000000000000"); r.status != 404 {
		t.Fatalf("unknown id: %d", r.status)
	}
	checkGuideShowsPhoto(t, c, ids["photo.jpg"])
}

// A guide shows its photos as the same media objects GET /v1/media/{id}
// answers, without the owner-only fields.
func checkGuideShowsPhoto(t *testing.T, c *mediaClient, mediaID string) {
	body := fmt.Sprintf(`{"title":"With a photo","lat":37.5665,"lng":126.978,"media_ids":[%q]}`, mediaID)
	req, _ := http.NewRequest("POST", c.base+"/v1/guides", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var guide struct {
		Media []mediaDoc `json:"media"`
	}
	err = json.NewDecoder(resp.Body).Decode(&guide)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 201 || len(guide.Media) != 1 {
		t.Fatalf("create guide: %d %v %+v", resp.StatusCode, err, guide)
	}
	got, want := guide.Media[0], c.get(mediaID).doc
	// The SHA-256 is the owner's only: a guide never shows it.
	if got.ID != want.ID || got.Status != "ready" || got.SHA256 != "" || want.SHA256 == "" || got.Bytes != want.Bytes ||
		got.Width != want.Width || got.ProcessedAt == nil || got.URLs.Original != nil || got.URLs.Web == nil {
		t.Fatalf("guide media %+v, media %+v", got, want)
	}
	if thumb := fetchJPEG(t, got.URLs.Thumbnail); thumb.Bounds().Dx() != want.Width {
		t.Fatalf("guide thumbnail %v", thumb.Bounds())
	}
}

// The same bytes again answer 200 with the same photo; an Idempotency-Key
// replays its first answer, refuses another file (422) and a repeat while
// the first is still running (409).
func TestMediaDuplicatesAndIdempotencyKeys(t *testing.T) {
	t.Parallel()
	shared := testkit.S3Config(t)
	proxy := startPausableProxy(t, strings.TrimPrefix(shared.Endpoint, "http://"))
	viaProxy := shared
	viaProxy.Endpoint = "http://" + proxy.addr
	s := newMediaStack(t, viaProxy)
	p := s.start("serve")
	c := newMediaClient(t, p.URL)
	jpg, png, webp := testPhoto(t, "photo.jpg"), testPhoto(t, "photo.png"), testPhoto(t, "photo.webp")

	first := c.upload(map[string][]byte{"a.jpg": jpg}, "")
	again := c.upload(map[string][]byte{"b.jpg": jpg}, "")
	if first.status != 202 || again.status != 200 || again.doc.ID != first.doc.ID {
		t.Fatalf("duplicate: %d %s, then %d %s", first.status, first.doc.ID, again.status, again.doc.ID)
	}
	k1 := c.upload(map[string][]byte{"p.png": png}, "key-1")
	replay := c.upload(map[string][]byte{"p.png": png}, "key-1")
	if k1.status != 202 || replay.status != 202 || replay.doc.ID != k1.doc.ID || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s, then %d %s %v", k1.status, k1.doc.ID, replay.status, replay.doc.ID, replay.header)
	}
	other := c.upload(map[string][]byte{"p.webp": webp}, "key-1")
	wantProblem(t, "another file, same key", other, 422, "Idempotency-Key")

	// Hold the first key-2 request inside its S3 write: the repeat is 409.
	proxy.pause()
	slow := make(chan mediaReply, 1)
	go func() { slow <- c.upload(map[string][]byte{"w.webp": webp}, "key-2") }()
	proxy.waitHeld(t)
	wantProblem(t, "repeat in flight", c.upload(map[string][]byte{"w.webp": webp}, "key-2"), 409, "Idempotency-Key")
	proxy.resume()
	if r := <-slow; r.status != 202 {
		t.Fatalf("the held request: %d %+v", r.status, r.doc)
	}
	if r := c.upload(map[string][]byte{"w.webp": webp}, "key-2"); r.status != 202 || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("after the first finished: %d", r.status)
	}
	if n := len(s.objects()); n != 3 {
		t.Fatalf("%d originals stored, want 3", n)
	}
}

// A photo whose original was lost before a worker ran fails, asking its
// owner to upload it again: doing so answers 202 with the same photo
// pending, and it becomes ready. A corrupt photo would only fail again, so
// uploading it again answers 200 with its failure.
func TestMediaFailedPhotoUploadedAgainIsRetried(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	c := newMediaClient(t, s.start("serve").URL)
	jpg, corrupt := testPhoto(t, "photo.jpg"), testPhoto(t, "corrupt.jpg")
	lost, bad := c.upload(map[string][]byte{"a.jpg": jpg}, ""), c.upload(map[string][]byte{"c.jpg": corrupt}, "")
	if err := objstore.New(s.s3).Delete(context.Background(), media.OriginalKey(lost.doc.ID)); err != nil {
		t.Fatal(err)
	}
	s.start("worker")
	if m := c.waitDone(lost.doc.ID, photoDone); m.Status != "failed" || m.Failure == nil {
		t.Fatalf("lost original: %+v", m)
	}
	c.waitDone(bad.doc.ID, photoDone)

	again := c.upload(map[string][]byte{"a-again.jpg": jpg}, "")
	if again.status != 202 || again.doc.ID != lost.doc.ID || again.doc.Status != "pending" || again.doc.Failure != nil {
		t.Fatalf("upload again: %d %+v", again.status, again.doc)
	}
	m := c.waitDone(lost.doc.ID, photoDone)
	if m.Status != "ready" {
		t.Fatalf("after the upload again: %+v", m)
	}
	fetchJPEG(t, m.URLs.Web)
	badAgain := c.upload(map[string][]byte{"c-again.jpg": corrupt}, "")
	if badAgain.status != 200 || badAgain.doc.ID != bad.doc.ID || badAgain.doc.Status != "failed" || badAgain.doc.Failure == nil {
		t.Fatalf("corrupt upload again: %d %+v", badAgain.status, badAgain.doc)
	}
}

func wantProblem(t *testing.T, what string, r mediaReply, status int, field string) {
	t.Helper()
	ctype := r.header.Get("Content-Type")
	if r.status != status || !strings.HasPrefix(ctype, "application/problem+json") ||
		len(r.problem.Errors) == 0 || r.problem.Errors[0].Field != field {
		t.Errorf("%s: want %d naming %q, got %d %s %+v", what, status, field, r.status, ctype, r.problem)
	}
}

// Bad uploads: each a problem+json naming the field, and nothing stored.
func TestMediaBadUploadsStoreNothing(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("serve")
	c := newMediaClient(t, p.URL)
	for name, status := range map[string]int{
		"image.svg": 415, "page.html": 415, "doc.pdf": 415, "archive.zip": 415, "text.jpg": 415,
		"image.gif": 415, "bomb.png": 422, "polyglot-header.jpg": 422,
	} {
		// Named and typed like a JPEG: neither is trusted.
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		part, _ := w.CreatePart(map[string][]string{
			"Content-Disposition": {`form-data; name="file"; filename="holiday.jpg"`}, "Content-Type": {"image/jpeg"}})
		part.Write(testPhoto(t, name))
		w.Close()
		req, _ := http.NewRequest("POST", p.URL+"/v1/media", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		wantProblem(t, name, c.send(req), status, "file")
	}
	jpg := testPhoto(t, "photo.jpg")
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	w.WriteField("caption", "no photo here")
	w.Close()
	req, _ := http.NewRequest("POST", p.URL+"/v1/media", &form)
	req.Header.Set("Content-Type", w.FormDataContentType())
	wantProblem(t, "no file field", c.send(req), 400, "file")
	wantProblem(t, "a file in another field", c.upload(map[string][]byte{"photo=a.jpg": jpg}, ""), 400, "photo")
	wantProblem(t, "two files", c.upload(map[string][]byte{"a.jpg": jpg, "other=b.jpg": jpg}, ""), 400, "other")
	var two bytes.Buffer
	w = multipart.NewWriter(&two)
	for range 2 {
		part, _ := w.CreateFormFile("file", "a.jpg")
		part.Write(jpg)
	}
	w.Close()
	req, _ = http.NewRequest("POST", p.URL+"/v1/media", &two)
	req.Header.Set("Content-Type", w.FormDataContentType())
	wantProblem(t, "two file parts", c.send(req), 400, "file")

	wantProblem(t, "empty file", c.upload(map[string][]byte{"a.jpg": nil}, ""), 400, "file")
	req, _ = http.NewRequest("POST", p.URL+"/v1/media", strings.NewReader(`{"file":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	wantProblem(t, "not multipart", c.send(req), 415, "Content-Type")
	wantProblem(t, "bad key", c.upload(map[string][]byte{"a.jpg": jpg}, "two words"), 400, "Idempotency-Key")
	if r := (&mediaClient{t: t, base: p.URL}).upload(map[string][]byte{"a.jpg": jpg}, ""); r.status != 401 {
		t.Errorf("anonymous upload: %d", r.status)
	}

	// Over 25 MiB: refused from Content-Length before the body is read…
	addr := strings.TrimPrefix(p.URL, "http://")
	declared := rawUpload(t, addr, c.token, 30<<20, false)
	wantProblem(t, "declared 30 MiB", declared, 413, "file")
	if declared.took > 2*time.Second {
		t.Errorf("a declared oversize took %s to refuse", declared.took)
	}
	// …and cut off by the body limit when chunked.
	wantProblem(t, "chunked 26 MiB", rawUpload(t, addr, c.token, 26<<20, true), 413, "file")

	if n, keys := s.rows(), s.objects(); n != 0 || len(keys) != 0 {
		t.Fatalf("bad uploads left %d rows and objects %v", n, keys)
	}
}

// rawUpload sends a multipart body of about size bytes over a bare TCP
// connection, declared or chunked, and reads the answer while still
// writing: the server answers 413 without reading it all.
func rawUpload(t *testing.T, addr, token string, size int, chunked bool) mediaReply {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const boundary = "XBOUNDARYX"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.jpg\"\r\n\r\n"
	framing := "Content-Length: " + fmt.Sprint(size)
	if chunked {
		framing = "Transfer-Encoding: chunked"
	}
	fmt.Fprintf(conn, "POST /v1/media HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=%s\r\n%s\r\n\r\n", addr, token, boundary, framing)
	start := time.Now()
	go func() {
		chunk := make([]byte, 1<<20)
		copy(chunk, head)
		for sent := 0; sent < size; sent += len(chunk) {
			var err error
			if chunked {
				_, err = fmt.Fprintf(conn, "%x\r\n%s\r\n", len(chunk), chunk)
			} else {
				_, err = conn.Write(chunk)
			}
			if err != nil {
				return // the server answered and closed: expected
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := mediaReply{status: resp.StatusCode, header: resp.Header, took: time.Since(start)}
	body, _ := io.ReadAll(resp.Body)
	r.decode(body)
	return r
}

// The S3 server stopped: uploads answer 503 at once and leave no row.
func TestMediaS3DownAnswers503(t *testing.T) {
	t.Parallel()
	s3 := testkit.StartS3(t)
	s := newMediaStack(t, s3.Config)
	p := s.start("serve")
	c := newMediaClient(t, p.URL)
	s3.Stop()
	r := c.upload(map[string][]byte{"a.jpg": testPhoto(t, "photo.jpg")}, "k")
	if r.status != 503 || r.header.Get("Retry-After") == "" || r.took > 3*time.Second {
		t.Fatalf("with S3 down: %d in %s, %+v", r.status, r.took, r.doc)
	}
	if n := s.rows(); n != 0 {
		t.Fatalf("%d rows after a failed upload", n)
	}
}

// Redis stopped during an upload: still 202, and the photo becomes ready
// once Redis is back, because the sweeper queues it.
func TestMediaRedisDownUploadIsSweptLater(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	c := newMediaClient(t, p.URL)
	s.redis.Stop()
	r := c.upload(map[string][]byte{"a.png": testPhoto(t, "photo.png")}, "")
	if r.status != 202 || r.doc.Status != "pending" || r.took > 3*time.Second {
		t.Fatalf("with Redis down: %d in %s, %+v", r.status, r.took, r.doc)
	}
	time.Sleep(time.Second)
	if m := c.get(r.doc.ID).doc; m.Status != "pending" {
		t.Fatalf("processed with Redis down? %s", m.Status)
	}
	s.redis.Start() // empty: the task that was never queued is not there either
	if m := c.waitDone(r.doc.ID, photoDone); m.Status != "ready" {
		t.Fatalf("after Redis came back: %+v", m)
	}
}

// A worker SIGKILLed in the middle of a task: the task's lease lapses and a
// restarted worker finishes the photo. asynq declares a lease lost 30 s
// after it expires (30 s), so this test takes about a minute.
func TestMediaWorkerKilledMidTaskStillFinishes(t *testing.T) {
	if testing.Short() {
		t.Skip("waits a minute for asynq's lease recovery")
	}
	t.Parallel()
	// Encoding 35 MP takes seconds under -race: overlap it with the start.
	big := make(chan []byte, 1)
	go func() { big <- bigJPEG(7000, 5000) }()
	s := newMediaStack(t, testkit.S3Config(t))
	api := s.start("serve")
	c := newMediaClient(t, api.URL)
	first := s.start("worker")
	r := c.upload(map[string][]byte{"big.jpg": <-big}, "")
	if r.status != 202 {
		t.Fatalf("upload: %d", r.status)
	}
	deadline := time.Now().Add(20 * time.Second)
	for c.get(r.doc.ID).doc.Status != "processing" {
		if time.Now().After(deadline) {
			t.Fatal("the worker never started the task")
		}
		time.Sleep(10 * time.Millisecond)
	}
	first.Signal(syscall.SIGKILL)
	if !first.Wait(5 * time.Second) {
		t.Fatal("the worker survived SIGKILL")
	}
	if m := c.get(r.doc.ID).doc; m.Status != "processing" {
		t.Fatalf("the kill came too late to test anything: %s", m.Status)
	}
	s.start("worker")
	killed := time.Now()
	m := c.waitDone(r.doc.ID, 100*time.Second)
	t.Logf("ready %s after the kill", time.Since(killed).Round(time.Second))
	if m.Status != "ready" {
		t.Fatalf("after the restart: %+v", m)
	}
	web, thumb := fetchJPEG(t, m.URLs.Web), fetchJPEG(t, m.URLs.Thumbnail)
	if web.Bounds().Dx() != 2048 || web.Bounds().Dy() != 1463 || thumb.Bounds().Dx() != 1080 || thumb.Bounds().Dy() != 772 {
		t.Fatalf("web %v, thumb %v", web.Bounds(), thumb.Bounds())
	}
}

// bigJPEG makes a photo large enough that rendering it takes a while.
func bigJPEG(w, h int) []byte {
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			img.Y[y*img.YStride+x] = uint8(x/16 + y/16 + (x*y)%7)
		}
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}) // cannot fail on a bytes.Buffer
	return buf.Bytes()
}

// pausableProxy forwards TCP to an S3 server and can hold the traffic, to
// keep a request in the middle of its S3 write.
type pausableProxy struct {
	addr   string
	mu     sync.Mutex
	cond   *sync.Cond
	paused bool
	held   chan struct{}
}

func startPausableProxy(t *testing.T, target string) *pausableProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pausableProxy{addr: ln.Addr().String(), held: make(chan struct{}, 1)}
	p.cond = sync.NewCond(&p.mu)
	t.Cleanup(func() { p.resume(); ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			go func() { io.Copy(out, gatedReader{in, p}); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return p
}

func (p *pausableProxy) pause()  { p.mu.Lock(); p.paused = true; p.mu.Unlock() }
func (p *pausableProxy) resume() { p.mu.Lock(); p.paused = false; p.cond.Broadcast(); p.mu.Unlock() }

func (p *pausableProxy) waitHeld(t *testing.T) {
	select {
	case <-p.held:
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached S3")
	}
}

type gatedReader struct {
	r io.Reader
	p *pausableProxy
}

func (g gatedReader) Read(b []byte) (int, error) {
	n, err := g.r.Read(b)
	g.p.mu.Lock()
	if g.p.paused {
		select {
		case g.p.held <- struct{}{}:
		default:
		}
	}
	for g.p.paused {
		g.p.cond.Wait()
	}
	g.p.mu.Unlock()
	return n, err
}
