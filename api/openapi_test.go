package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/prometheus/client_golang/prometheus"
)

// The document and the router must describe the same surface: a route
// missing from the document, or a documented route that does not exist,
// fails here.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string                    `yaml:"openapi"`
		Paths   map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("want OpenAPI 3.1, got %q", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{})
	param := regexp.MustCompile(`:([A-Za-z_]+)`)
	registered := map[string]bool{}
	for _, r := range s.Routes() {
		path := param.ReplaceAllString(r.Path, "{$1}")
		if path == "/v1/tiles/{z}/{x}/{y}" { // the handler requires the suffix (tileSuffix)
			path += tileSuffix
		}
		registered[r.Method+" "+path] = true
	}
	for _, missing := range diff(registered, documented) {
		t.Errorf("route %s is not in api/openapi.yaml", missing)
	}
	for _, ghost := range diff(documented, registered) {
		t.Errorf("api/openapi.yaml documents %s, which is not a route", ghost)
	}
}

func diff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func TestOpenAPIIsServed(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{})
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.yaml", nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), OpenAPI) || !strings.Contains(rec.Header().Get("Content-Type"), "yaml") {
		t.Fatalf("GET /openapi.yaml: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}

// The operational endpoints document 431 as their client error: Go's HTTP
// server answers it before any route runs, so it holds for every route.
func TestOversizedHeadersAre431(t *testing.T) {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	req, err := http.NewRequest("GET", srv.URL+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Padding", strings.Repeat("x", http.DefaultMaxHeaderBytes+8192))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("GET /healthz with %d bytes of headers: %d, want 431", http.DefaultMaxHeaderBytes, resp.StatusCode)
	}
}

// Every operation taking a JSON body documents the 415 a body of another
// type gets, and what the body gate answers: 408 (too slow), 413 (too
// large) and 429 (too many from one address).
func TestJSONOperationsDocument415(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]any `yaml:"content"`
			} `yaml:"requestBody"`
			Responses map[string]any `yaml:"responses"`
		} `yaml:"paths"`
	}
	if err := yaml.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.RequestBody == nil || op.RequestBody.Content["application/json"] == nil {
				continue
			}
			n++
			for _, status := range []string{"408", "413", "415", "429"} {
				if op.Responses[status] == nil {
					t.Errorf("%s %s takes JSON but documents no %s", strings.ToUpper(method), path, status)
				}
			}
		}
	}
	if n < 8 {
		t.Fatalf("found %d operations taking JSON", n)
	}
}
