package api

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Every file the page names (in its HTML, and in the imports of its
// modules) is served with a type a browser accepts for it; browsers refuse
// a module script served as anything but JavaScript.
func TestMapPageServesEveryFileItNames(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{})
	get := func(path string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec
	}
	page := get("/map")
	if page.Code != 200 || page.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /map: %d %q", page.Code, page.Header().Get("Content-Type"))
	}
	refs := regexp.MustCompile(`(?:src|href)="(/map/[^"]+)"|from '(/map/[^']+)'|fetch\('(/map/[^']+)'`)
	want := map[string]string{".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".json": "application/json"}
	seen := map[string]bool{}
	queue := []string{page.Body.String()}
	for len(queue) > 0 {
		body := queue[0]
		queue = queue[1:]
		for _, m := range refs.FindAllStringSubmatch(body, -1) {
			path := m[1] + m[2] + m[3]
			if seen[path] {
				continue
			}
			seen[path] = true
			rec := get(path)
			ext := path[strings.LastIndex(path, "."):]
			if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), want[ext]) || want[ext] == "" {
				t.Errorf("GET %s: %d %q", path, rec.Code, rec.Header().Get("Content-Type"))
				continue
			}
			if ext == ".js" {
				queue = append(queue, rec.Body.String())
			}
		}
	}
	for _, path := range []string{"/map/map.js", "/map/vendor/maplibre-gl.mjs", "/map/vendor/countries-50m.json"} {
		if !seen[path] {
			t.Errorf("the page never names %s", path)
		}
	}
	// MapLibre starts its worker from the file beside its own.
	if rec := get("/map/vendor/maplibre-gl-worker.mjs"); rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/javascript") {
		t.Errorf("GET the MapLibre worker: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	for _, path := range []string{"/map/vendor/LICENSE-maplibre-gl.txt", "/map/vendor/LICENSE-world-atlas.txt",
		"/map/vendor/LICENSE-topojson-client.txt", "/map/vendor/LICENSE-thumbhash.txt", "/map/vendor/VERSIONS"} {
		if rec := get(path); rec.Code != 200 || rec.Body.Len() == 0 {
			t.Errorf("GET %s: %d", path, rec.Code)
		}
	}

	etag := get("/map/map.js").Header().Get("ETag")
	if rec := get("/map/map.js", "If-None-Match", etag); etag == "" || rec.Code != http.StatusNotModified {
		t.Errorf("revalidating map.js with ETag %q: %d, want 304", etag, rec.Code)
	}
	if rec := get("/map/vendor/maplibre-gl.mjs", "If-None-Match", etag); rec.Code != 200 {
		t.Errorf("another file's ETag: %d, want 200", rec.Code)
	}
	for _, path := range []string{"/map/nothing.js", "/map/vendor/maplibre-gl.mjs.map", "/map/..%2fweb.go", "/map/vendor/..%2f..%2fweb.go"} {
		if rec := get(path); rec.Code != 404 || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("GET %s: %d %q, want a 404 problem", path, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}
