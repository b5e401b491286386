package api_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/guidepost/guidepost/api"
)

// The map reads answer only what the document says they do: every status
// seen (200, 204, 304, 400) is documented for the operation, with the
// ETag and Cache-Control headers it carried, its content type, and the
// If-None-Match parameter that asked for it.
func TestMapReadsAnswerAsDocumented(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []map[string]any `yaml:"parameters"`
			Responses  map[string]struct {
				Ref     string                    `yaml:"$ref"`
				Headers map[string]any            `yaml:"headers"`
				Content map[string]map[string]any `yaml:"content"`
			} `yaml:"responses"`
		} `yaml:"paths"`
		Components struct {
			Responses map[string]struct {
				Headers map[string]any `yaml:"headers"`
			} `yaml:"responses"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	_, h := threeGuidesAtCityHall(t, time.Second)
	documented := map[string]string{ // request path (without query) -> document path
		"/v1/guides/nearby": "/v1/guides/nearby", "/v1/guides": "/v1/guides", "/v1/guides/clusters": "/v1/guides/clusters",
	}
	for _, path := range append(mapReads, "/v1/tiles/10/0/0.mvt", "/v1/guides/clusters?bbox=1,2,3,4&zoom=-1") {
		op := documented[strings.SplitN(path, "?", 2)[0]]
		if strings.HasPrefix(path, "/v1/tiles/") {
			op = "/v1/tiles/{z}/{x}/{y}.mvt"
		}
		spec := doc.Paths[op]["get"]
		if !slices.ContainsFunc(spec.Parameters, func(p map[string]any) bool { return p["$ref"] == "#/components/parameters/IfNoneMatch" }) {
			t.Errorf("%s does not document If-None-Match", op)
		}
		first := h.conditionalGet(path, "")
		seen := []condReply{first}
		if first.etag != "" {
			seen = append(seen, h.conditionalGet(path, first.etag))
		}
		for _, r := range seen {
			resp, ok := spec.Responses[strconv.Itoa(r.status)]
			if !ok {
				t.Errorf("GET %s answered %d, which %s does not document", path, r.status, op)
				continue
			}
			headers := resp.Headers
			if resp.Ref != "" {
				headers = doc.Components.Responses[resp.Ref[strings.LastIndex(resp.Ref, "/")+1:]].Headers
			}
			for name, value := range map[string]string{"ETag": r.etag, "Cache-Control": r.cacheControl} {
				if _, ok := headers[name]; value != "" && !ok && r.status < 400 {
					t.Errorf("GET %s: %d carries %s, not documented for it", path, r.status, name)
				}
			}
			if r.bodyLen > 0 && r.status < 400 {
				ct := strings.SplitN(r.contentType, ";", 2)[0]
				if _, ok := resp.Content[ct]; !ok {
					t.Errorf("GET %s: %d is %s, not documented", path, r.status, ct)
				}
			}
		}
	}
}
