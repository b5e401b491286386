package api_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

// acceptAll stands in for the media service: these tests are about how
// the API receives bodies, not what the service does with them.
type acceptAll struct {
	uploads atomic.Int64
	err     error         // when set, Upload answers it
	delay   time.Duration // how long Upload works, unless its ctx ends first
}

func (*acceptAll) UploadLimit() int64                        { return 25 << 20 }
func (*acceptAll) CheckSize(int64) error                     { return nil }
func (*acceptAll) AdmitUpload(context.Context, string) error { return nil }
func (a *acceptAll) Upload(ctx context.Context, in media.UploadInput) (media.UploadResult, error) {
	a.uploads.Add(1)
	select {
	case <-time.After(a.delay):
	case <-ctx.Done():
		return media.UploadResult{}, ctx.Err()
	}
	if a.err != nil {
		return media.UploadResult{}, a.err
	}
	return media.UploadResult{View: media.View{Media: media.Media{ID: "0190b7c4-0000-7000-8000-000000000001",
		OwnerID: in.OwnerID, Status: media.StatusPending, Bytes: in.File.Size(), SHA256: in.File.SHA256()}}, Outcome: media.Accepted}, nil
}
func (*acceptAll) Get(context.Context, string, string) (media.View, error) { return media.View{}, nil }
func (*acceptAll) GetMany(context.Context, []string, string) (media.Batch, error) {
	return media.Batch{}, nil
}
func (*acceptAll) Mine(context.Context, string, *int, string) (media.MinePage, error) {
	return media.MinePage{}, nil
}
func (*acceptAll) Delete(context.Context, string, string) error { return nil }
func (*acceptAll) VariantURL(context.Context, string, string, string) (media.VariantLink, error) {
	return media.VariantLink{}, guidepost.Errorf(guidepost.ENOTFOUND, "media not found")
}
func (a *acceptAll) Spool(r io.Reader) (*media.Spooled, error) {
	return media.Spool(r, a.UploadLimit())
}

// uploadServer is a real HTTP server (read deadlines need one) with real
// accounts and tokens.
func uploadServer(t *testing.T, tune func(*testServer)) (*httptest.Server, *acceptAll) {
	c := &clock{}
	c.now.Store(time.Now().UnixNano())
	tokens := auth.NewTokens(strings.Repeat("k", 32), time.Hour, c)
	svc := &acceptAll{}
	ts := &testServer{Deps: api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), Media: svc, Clock: c},
		AuthDeps: auth.Deps{Store: gsql.NewUsers(testkit.DB(t)), Tokens: tokens, Clock: c}}
	if tune != nil {
		tune(ts)
	}
	ts.Auth = ts.authService()
	srv := httptest.NewServer(ts.server().Handler())
	t.Cleanup(srv.Close)
	return srv, svc
}

func guestToken(t *testing.T, base string) string {
	t.Helper()
	h := &harness{t: t, srv: &httptest.Server{URL: base}}
	r := h.do("POST", "/v1/auth/guest", "", "{}")
	if r.status != 201 {
		t.Fatalf("guest: %d %v", r.status, r.body)
	}
	return r.body["access_token"].(string)
}

// slowUpload starts an upload whose body sends its multipart head and
// then nothing until release is closed; it reports the answer's status on
// done (0 when the request failed without one).
func slowUpload(client *http.Client, base, token string, release <-chan struct{}, done chan<- int) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequest("POST", base+"/v1/media", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		if part, err := mw.CreateFormFile("file", "slow.jpg"); err == nil {
			part.Write([]byte("\xff\xd8\xff"))
		}
		<-release
		pw.CloseWithError(io.ErrUnexpectedEOF)
	})
	resp, err := client.Do(req)
	if err != nil {
		done <- 0
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	done <- resp.StatusCode
}

// metric reads one unlabelled gauge or counter from /metrics (0 if absent).
func metric(t *testing.T, base, name string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

// 256 uploads trickling in on one guest token must not take the slots
// every other request needs: before uploads had their own pool, each held
// one of the 256 general slots for as long as its body took, and every
// other request got 503.
func TestSlowUploadsDoNotStarveTheAPI(t *testing.T) {
	srv, _ := uploadServer(t, nil)
	token := guestToken(t, srv.URL)
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 300}}
	release := make(chan struct{})
	done := make(chan int, 256)
	var wg sync.WaitGroup
	for range 256 {
		wg.Go(func() { slowUpload(client, srv.URL, token, release, done) })
	}
	defer func() {
		close(release)
		wg.Wait()
	}()
	// Wait until every upload is either answered or being received.
	statuses := map[int]int{}
	deadline := time.Now().Add(20 * time.Second)
	for {
		for len(done) > 0 {
			statuses[<-done]++
		}
		held := metric(t, srv.URL, "guidepost_http_inflight") + metric(t, srv.URL, "guidepost_upload_inflight")
		answered := 0
		for _, n := range statuses {
			answered += n
		}
		if int(held)+answered >= 256 {
			break
		}
		if time.Now().After(deadline) {
			resp, _ := http.Get(srv.URL + "/metrics")
			raw, _ := io.ReadAll(resp.Body)
			for _, l := range strings.Split(string(raw), "\n") {
				if strings.Contains(l, "upload") || strings.Contains(l, "inflight") {
					t.Log(l)
				}
			}
			t.Fatalf("uploads never all arrived: %v held, %v answered", held, statuses)
		}
		time.Sleep(20 * time.Millisecond)
	}
	h := &harness{t: t, srv: srv}
	for i := range 20 {
		if r := h.do("GET", "/v1/me", token, ""); r.status != 200 {
			t.Fatalf("request %d beside 256 slow uploads: %d %v (uploads so far: %v)", i, r.status, r.body, statuses)
		}
		if r := h.do("GET", "/v1/media/0190b7c4-0000-7000-8000-000000000001", "", ""); r.status != 200 {
			t.Fatalf("read %d beside 256 slow uploads: %d %v", i, r.status, r.body)
		}
	}
	if statuses[429] != 256-4 {
		t.Errorf("want 252 uploads refused with 429 (4 at once per account), got %v", statuses)
	}
	if held := metric(t, srv.URL, "guidepost_upload_inflight"); held != 4 {
		t.Errorf("%v uploads being received, want 4", held)
	}
}

// trickle sends an upload whose file part arrives at chunk bytes every
// every, size bytes in all (stalling after stallAt bytes when > 0), and
// returns the answer's status and body.
func trickle(t *testing.T, base, token string, chunk, size, stallAt int, every time.Duration) (int, string) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequest("POST", base+"/v1/media", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		part, _ := mw.CreateFormFile("file", "photo.jpg")
		buf := make([]byte, chunk)
		for sent := 0; sent < size; sent += chunk {
			wait := every
			if stallAt > 0 && sent >= stallAt {
				wait = time.Hour
			}
			select {
			case <-stop:
				pw.CloseWithError(io.ErrClosedPipe)
				return
			case <-time.After(wait):
			}
			if _, err := part.Write(buf); err != nil {
				return
			}
		}
		mw.Close()
		pw.Close()
	})
	defer func() {
		close(stop)
		wg.Wait()
	}()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type") + " " + string(raw)
}

// A body that stalls, or trickles below the minimum rate once its grace is
// over, is cut with 408; one that keeps up is received whole.
func TestUploadBodyBelowMinimumRateIsCut(t *testing.T) {
	srv, svc := uploadServer(t, func(d *testServer) {
		d.Uploads = api.UploadLimits{MinRate: 32 << 10, Grace: 300 * time.Millisecond}
	})
	token := guestToken(t, srv.URL)
	for _, tc := range []struct {
		name                 string
		chunk, size, stallAt int
		every                time.Duration
		status               int
	}{
		{"stalls after its head", 1 << 10, 1 << 20, 0, time.Hour, 408},
		{"trickles at 10 KiB/s", 1 << 10, 1 << 20, 0, 100 * time.Millisecond, 408},
		{"stalls after a fast start", 256 << 10, 4 << 20, 1 << 20, 10 * time.Millisecond, 408},
		{"keeps up at ~640 KiB/s", 64 << 10, 1 << 20, 0, 100 * time.Millisecond, 202},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			status, body := trickle(t, srv.URL, token, tc.chunk, tc.size, tc.stallAt, tc.every)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if status == 408 {
				if !strings.HasPrefix(body, "application/problem+json") || !strings.Contains(body, "/problems/body_timeout") {
					t.Fatalf("408 is not the problem+json answer: %s", body)
				}
				if took := time.Since(start); took > 10*time.Second {
					t.Fatalf("cut after %v: the grace is 300 ms", took)
				}
			}
		})
	}
	if n := svc.uploads.Load(); n != 1 {
		t.Fatalf("%d uploads reached the service, want only the one that kept up", n)
	}
}

// An upload whose body arrived in full may take longer than the grace to
// be stored: the body's read deadline must not outlive the body and cut
// the request it belongs to.
func TestUploadWorkPastTheGraceIsNotCut(t *testing.T) {
	srv, svc := uploadServer(t, func(d *testServer) {
		d.Uploads = api.UploadLimits{MinRate: 32 << 10, Grace: 200 * time.Millisecond}
	})
	svc.delay = time.Second
	token := guestToken(t, srv.URL)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", "photo.jpg")
	part.Write(bytes.Repeat([]byte{1}, 64<<10))
	mw.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/media", bytes.NewReader(body.Bytes())) // Content-Length set
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d after 1 s of work past a 200 ms grace, want 202: %s", res.StatusCode, b)
	}
}

// Over a quota: 403 problem+json whose quota member names it.
func TestOverQuotaAnswers403NamingTheQuota(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Media.(*acceptAll).err = guidepost.QuotaExceeded("photos", 5000, 5000, "this account stores 5000 photos, its quota")
	})
	status, body := trickle(t, srv.URL, guestToken(t, srv.URL), 1<<10, 4<<10, 0, time.Millisecond)
	if status != 403 || !strings.HasPrefix(body, "application/problem+json") ||
		!strings.Contains(body, `"type":"/problems/quota_exceeded"`) ||
		!strings.Contains(body, `"quota":{"name":"photos","limit":5000,"used":5000}`) {
		t.Fatalf("%d %s", status, body)
	}
}
