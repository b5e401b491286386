package api_test

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/api"
)

// Anyone can send any token as a method or path before authenticating:
// neither may grow the request metrics' label set.
func TestMetricLabelsStayBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: reg}, api.Config{})
	h := s.Handler()
	for i := range 2000 {
		method := fmt.Sprintf("M%d", rand.IntN(1_000_000))
		path := fmt.Sprintf("/x/%d", i)
		if i%2 == 0 {
			path = "/healthz"
		}
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, path, nil))
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	methods, routes := map[string]bool{}, map[string]bool{}
	for _, f := range fams {
		if f.GetName() != "guidepost_http_request_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "method":
					methods[l.GetValue()] = true
				case "route":
					routes[l.GetValue()] = true
				}
			}
		}
	}
	if len(methods) != 2 || !methods["other"] || !methods["GET"] {
		t.Errorf("method labels: %v, want GET and other", methods)
	}
	if len(routes) != 2 || !routes["unmatched"] || !routes["/healthz"] {
		t.Errorf("route labels: %v, want /healthz and unmatched", routes)
	}
}
