package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI implements the contract the tool codes against, with deliberate
// faults whose exact count it keeps, so tests can check that the tool
// reports exactly those: rejected uploads (503), uploads that never become
// ready or fail, likes the counter loses, double taps it counts twice.
type fakeAPI struct {
	mu sync.Mutex

	tokens  map[string]string // token → user id
	signups int
	guides  []string

	// uploads
	rejectEvery, neverEvery, failEvery int
	uploadSeq                          int
	media                              map[string]*fakeMedia
	byHash                             map[string]string // owner + sha → media id
	accepted, rejected, never, failed  int
	uploaders                          map[string]bool
	direct                             map[string][]byte // direct upload id → the one part PUT
	base                               string            // the fake's URL, for its part URLs

	// likes: liked is the truth (idempotent); count is the buggy counter
	liked     map[[2]string]bool
	count     map[string]int
	loseEvery map[string]int // guide → every Nth new like is not counted
	dupEvery  map[string]int // guide → every Nth repeated like is counted again
	newLikes  map[string]int
	repeats   map[string]int
	likers    map[string]bool

	// nearby gets slow (1.1 s) after this many requests (0: never); nearby
	// and viewport queries past nearbyCap in the last second too (0: no cap)
	slowNearbyAfter int
	nearbySeen      int
	nearbyCap       int
	nearbyRecent    []time.Time

	// cold start: accept any token issued by another fake, and shed the
	// first rejectFirst API requests with 503
	anyToken    bool
	rejectFirst int
	shed        int

	scrapes int

	// refuseTile, when set, answers the tiles it names with a 4xx problem
	// (the API's refusals by design); it returns 0 for the others.
	refuseTile func(uri string) int
}

// fakeMedia finishes (ready or failed) at doneAt, as a worker would; a
// "never" photo is a lost job: pending forever and not in the queue.
type fakeMedia struct {
	id, owner, fate string
	doneAt          time.Time
}

const fakeWorkTime = 100 * time.Millisecond

func newFakeAPI() *fakeAPI {
	return &fakeAPI{tokens: map[string]string{}, media: map[string]*fakeMedia{}, byHash: map[string]string{},
		uploaders: map[string]bool{}, liked: map[[2]string]bool{}, count: map[string]int{},
		loseEvery: map[string]int{}, dupEvery: map[string]int{}, newLikes: map[string]int{},
		repeats: map[string]int{}, likers: map[string]bool{}}
}

func (f *fakeAPI) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(f.handler())
	t.Cleanup(srv.Close)
	f.mu.Lock()
	f.base, f.direct = srv.URL, map[string][]byte{}
	f.mu.Unlock()
	return srv
}

// startDirect opens a one-part direct upload whose part URL is the fake's.
func (f *fakeAPI) startDirect(w http.ResponseWriter, r *http.Request, tok string) {
	var d struct {
		Bytes int64 `json:"bytes"`
	}
	if err := json.NewDecoder(r.Body).Decode(&d); err != nil || d.Bytes <= 0 {
		problem(w, 400, "bad declaration")
		return
	}
	f.mu.Lock()
	f.uploadSeq++
	id := fmt.Sprintf("u%d", f.uploadSeq)
	f.direct[id] = nil
	url := f.base + "/s3/" + id
	f.mu.Unlock()
	writeJSONResp(w, 201, map[string]any{"id": id, "part_size": 5 << 20,
		"parts": []map[string]any{{"number": 1, "bytes": d.Bytes, "url": url}}})
}

func (f *fakeAPI) putPart(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.direct[r.PathValue("id")]; !ok || r.Header.Get("Authorization") != "" {
		w.WriteHeader(403)
		return
	}
	f.direct[r.PathValue("id")] = b
}

func (f *fakeAPI) completeDirect(w http.ResponseWriter, r *http.Request, tok string) {
	f.mu.Lock()
	b := f.direct[r.PathValue("id")]
	f.mu.Unlock()
	if b == nil {
		problem(w, 409, "parts missing")
		return
	}
	f.accept(w, tok, b)
}

func (f *fakeAPI) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	mux.HandleFunc("GET /metrics", f.metrics)
	mux.HandleFunc("POST /v1/auth/guest", f.guest)
	mux.HandleFunc("POST /v1/guides", f.auth(f.createGuide))
	mux.HandleFunc("GET /v1/guides/{id}", f.auth(f.readGuide))
	mux.HandleFunc("GET /v1/guides/nearby", f.auth(f.nearby))
	mux.HandleFunc("GET /v1/guides", f.auth(f.list))
	mux.HandleFunc("PUT /v1/guides/{id}/like", f.auth(f.like))
	mux.HandleFunc("DELETE /v1/guides/{id}/like", f.auth(f.unlike))
	mux.HandleFunc("POST /v1/media", f.auth(f.upload))
	mux.HandleFunc("POST /v1/uploads", f.auth(f.startDirect))
	mux.HandleFunc("PUT /s3/{id}", f.putPart)
	mux.HandleFunc("POST /v1/uploads/{id}/complete", f.auth(f.completeDirect))
	mux.HandleFunc("GET /v1/media/{id}", f.auth(f.getMedia))
	mux.HandleFunc("GET /v1/tiles/{z}/{x}/{y}", f.tile)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") && f.shedNow() {
			w.Header().Set("Retry-After", "1")
			problem(w, 503, "warming up")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (f *fakeAPI) shedNow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shed < f.rejectFirst {
		f.shed++
		return true
	}
	return false
}

func writeJSONResp(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func problem(w http.ResponseWriter, code int, title string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"title":%q,"status":%d}`, title, code)
}

type authed func(w http.ResponseWriter, r *http.Request, token string)

func (f *fakeAPI) auth(h authed) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		_, ok := f.tokens[tok]
		ok = ok || f.anyToken && strings.HasPrefix(tok, "tok-")
		f.mu.Unlock()
		if !ok {
			problem(w, 401, "unauthorized")
			return
		}
		h(w, r, tok)
	}
}

func (f *fakeAPI) guest(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.signups++
	n := f.signups
	tok := fmt.Sprintf("tok-%d", n)
	f.tokens[tok] = fmt.Sprintf("u%d", n)
	f.mu.Unlock()
	writeJSONResp(w, 201, map[string]any{
		"user":         map[string]any{"id": fmt.Sprintf("u%d", n), "email": nil, "display_name": "Guest", "created_at": time.Now()},
		"access_token": tok, "token_type": "Bearer", "expires_in": 86400,
	})
}

func (f *fakeAPI) createGuide(w http.ResponseWriter, r *http.Request, _ string) {
	var in guideIn
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Title == "" {
		problem(w, 400, "bad guide")
		return
	}
	f.mu.Lock()
	id := fmt.Sprintf("g%d", len(f.guides)+1)
	f.guides = append(f.guides, id)
	f.mu.Unlock()
	writeJSONResp(w, 201, map[string]any{"id": id, "title": in.Title, "like_count": 0, "liked_by_me": false})
}

func (f *fakeAPI) readGuide(w http.ResponseWriter, r *http.Request, _ string) {
	id := r.PathValue("id")
	f.mu.Lock()
	n := f.count[id]
	f.mu.Unlock()
	writeJSONResp(w, 200, map[string]any{"id": id, "like_count": n, "liked_by_me": false})
}

func (f *fakeAPI) nearby(w http.ResponseWriter, r *http.Request, _ string) {
	f.mu.Lock()
	f.nearbySeen++
	slow := f.slowNearbyAfter > 0 && f.nearbySeen > f.slowNearbyAfter || f.overCapLocked()
	f.mu.Unlock()
	if slow {
		time.Sleep(1100 * time.Millisecond)
	}
	writeJSONResp(w, 200, map[string]any{"items": []any{map[string]any{"id": "g1", "distance_m": 12.5}}, "next_cursor": nil})
}

// overCapLocked counts a map request and reports whether it is past
// nearbyCap in the last second.
func (f *fakeAPI) overCapLocked() bool {
	if f.nearbyCap == 0 {
		return false
	}
	now := time.Now()
	for len(f.nearbyRecent) > 0 && now.Sub(f.nearbyRecent[0]) > time.Second {
		f.nearbyRecent = f.nearbyRecent[1:]
	}
	f.nearbyRecent = append(f.nearbyRecent, now)
	return len(f.nearbyRecent) > f.nearbyCap
}

func (f *fakeAPI) list(w http.ResponseWriter, r *http.Request, _ string) {
	f.mu.Lock()
	if f.overCapLocked() {
		f.mu.Unlock()
		time.Sleep(1100 * time.Millisecond)
		f.mu.Lock()
	}
	items := make([]map[string]any, 0, len(f.guides))
	for _, id := range f.guides {
		items = append(items, map[string]any{"id": id})
	}
	f.mu.Unlock()
	writeJSONResp(w, 200, map[string]any{"items": items, "truncated": false})
}

// tile answers a tile whose bytes and ETag are its URL's; one in five is
// empty (204); If-None-Match holding the ETag gets 304.
func (f *fakeAPI) tile(w http.ResponseWriter, r *http.Request) {
	sum := sha256.Sum256([]byte(r.URL.RequestURI()))
	etag := fmt.Sprintf(`"%x"`, sum[:8])
	f.mu.Lock()
	refuse := f.refuseTile
	f.mu.Unlock()
	if refuse != nil {
		if code := refuse(r.URL.RequestURI()); code != 0 {
			problem(w, code, "refused by design: "+r.URL.RequestURI())
			return
		}
	}
	w.Header().Set("ETag", etag)
	switch {
	case r.Header.Get("If-None-Match") == etag:
		w.WriteHeader(http.StatusNotModified)
	case sum[0]%5 == 0:
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Content-Type", "application/vnd.mapbox-vector-tile")
		w.Write([]byte(strings.Repeat(r.URL.RequestURI(), 20)))
	}
}

func (f *fakeAPI) metrics(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.scrapes++
	pending, now := 0, time.Now()
	for _, m := range f.media {
		if m.fate != "never" && now.Before(m.doneAt) {
			pending++
		}
	}
	cpu := float64(f.scrapes) * 0.25
	f.mu.Unlock()
	fmt.Fprintf(w, "# HELP x\n# TYPE guidepost_queue_size gauge\n")
	for _, st := range []string{"active", "retry", "scheduled", "archived"} {
		fmt.Fprintf(w, "guidepost_queue_size{queue=\"media\",state=%q} 0\n", st)
	}
	fmt.Fprintf(w, "guidepost_queue_size{state=\"pending\",queue=\"media\"} %d\n", pending)
	fmt.Fprintf(w, "process_cpu_seconds_total %g\n", cpu)
}

func (f *fakeAPI) upload(w http.ResponseWriter, r *http.Request, tok string) {
	file, _, err := r.FormFile("file")
	if err != nil {
		problem(w, 400, "no file")
		return
	}
	b, _ := io.ReadAll(file)
	f.accept(w, tok, b)
}

// accept is the upload logic after the bytes are in, shared by POST
// /v1/media and the direct upload's complete.
func (f *fakeAPI) accept(w http.ResponseWriter, tok string, b []byte) {
	if _, err := jpeg.DecodeConfig(strings.NewReader(string(b))); err != nil {
		problem(w, 415, "not a jpeg")
		return
	}
	sum := sha256.Sum256(b)
	key := tok + string(sum[:])
	f.mu.Lock()
	defer f.mu.Unlock()
	f.uploaders[tok] = true
	if id, ok := f.byHash[key]; ok {
		writeJSONResp(w, 200, map[string]any{"id": id, "status": "pending"})
		return
	}
	f.uploadSeq++
	if f.rejectEvery > 0 && f.uploadSeq%f.rejectEvery == 0 {
		f.rejected++
		w.Header().Set("Retry-After", "1")
		problem(w, 503, "busy")
		return
	}
	m := &fakeMedia{id: fmt.Sprintf("m%d", f.uploadSeq), owner: tok, fate: "ready", doneAt: time.Now().Add(fakeWorkTime)}
	switch {
	case f.neverEvery > 0 && f.uploadSeq%f.neverEvery == 0:
		m.fate = "never"
		f.never++
	case f.failEvery > 0 && f.uploadSeq%f.failEvery == 0:
		m.fate = "failed"
		f.failed++
	}
	f.accepted++
	f.media[m.id], f.byHash[key] = m, m.id
	writeJSONResp(w, 202, map[string]any{"id": m.id, "status": "pending"})
}

func (f *fakeAPI) getMedia(w http.ResponseWriter, r *http.Request, tok string) {
	f.mu.Lock()
	m := f.media[r.PathValue("id")]
	if m == nil || m.owner != tok {
		f.mu.Unlock()
		problem(w, 404, "no such media")
		return
	}
	status := "processing"
	switch {
	case m.fate == "never":
		status = "pending"
	case !time.Now().Before(m.doneAt):
		status = m.fate
	}
	f.mu.Unlock()
	writeJSONResp(w, 200, map[string]any{"id": m.id, "status": status})
}

func (f *fakeAPI) like(w http.ResponseWriter, r *http.Request, tok string) {
	g := r.PathValue("id")
	p := [2]string{tok, g}
	f.mu.Lock()
	f.likers[tok] = true
	if !f.liked[p] {
		f.liked[p] = true
		f.newLikes[g]++
		if n := f.loseEvery[g]; n == 0 || f.newLikes[g]%n != 0 {
			f.count[g]++ // else: lost, as a buggy async counter would
		}
	} else {
		f.repeats[g]++
		if n := f.dupEvery[g]; n > 0 && f.repeats[g]%n == 0 {
			f.count[g]++ // a double tap counted twice
		}
	}
	n := f.count[g]
	f.mu.Unlock()
	writeJSONResp(w, 200, map[string]any{"liked_by_me": true, "like_count": n})
}

func (f *fakeAPI) unlike(w http.ResponseWriter, r *http.Request, tok string) {
	g := r.PathValue("id")
	p := [2]string{tok, g}
	f.mu.Lock()
	if f.liked[p] {
		delete(f.liked, p)
		f.count[g]--
	}
	n := f.count[g]
	f.mu.Unlock()
	writeJSONResp(w, 200, map[string]any{"liked_by_me": false, "like_count": n})
}

// likeTruth returns, per guide, the true like count and the lost and
// duplicated likes the buggy counter holds at the end.
func (f *fakeAPI) likeTruth() (truth map[string]int, lost, dup int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	truth = map[string]int{}
	for p := range f.liked {
		truth[p[1]]++
	}
	for _, g := range f.guides {
		d := f.count[g] - truth[g]
		lost += max(0, -d)
		dup += max(0, d)
	}
	return truth, lost, dup
}
