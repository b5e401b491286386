package api_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/internal/testkit"
)

// documentedEvent is the document's Event schema: every event a stream
// test reads must match it (the contract for text/event-stream, which the
// route list alone cannot check).
var documentedEvent = sync.OnceValues(func() (*openapi3.Schema, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		return nil, err
	}
	ref := doc.Components.Schemas["Event"]
	if ref == nil || ref.Value == nil {
		return nil, errors.New("api/openapi.yaml has no Event schema")
	}
	return ref.Value, nil
})

// conforms checks one event, its lines made into the object the schema
// describes.
func conforms(t *testing.T, ev testkit.SSEEvent) {
	t.Helper()
	schema, err := documentedEvent()
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{"event": ev.Name}
	if ev.ID != "" {
		obj["id"] = ev.ID
	}
	var data any
	if err := json.Unmarshal([]byte(ev.Data), &data); err != nil {
		t.Fatalf("event %s: data is not one line of JSON: %q", ev.Name, ev.Data)
	}
	obj["data"] = data
	if err := schema.VisitJSON(obj, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse()); err != nil {
		t.Errorf("event %s does not match the documented Event schema: %v\n%s", ev.Name, err, ev.Data)
	}
}

// The schema refuses what the server must never send, so conforms can
// fail: an event without its id, a name the document does not know, a
// photo without its marker URL.
func TestTheEventSchemaRefusesStrayEvents(t *testing.T) {
	schema, err := documentedEvent()
	if err != nil {
		t.Fatal(err)
	}
	urls := map[string]any{"web": "https://s3/w", "thumbnail": "https://s3/t", "marker": "https://s3/m"}
	photo := map[string]any{"object": "media", "id": "m", "status": "ready", "content_type": "image/jpeg", "bytes": 1, "width": 1, "height": 1,
		"thumbhash": "3OcRJYB4d3h/iIeHeEh3eIhw+j3A", "created_at": "2026-01-01T00:00:00Z", "processed_at": "2026-01-01T00:00:01Z",
		"urls": urls}
	good := map[string]any{"id": "1-0", "event": "media.ready", "data": photo}
	if err := schema.VisitJSON(good, openapi3.EnableJSONSchema2020()); err != nil {
		t.Fatalf("a good event: %v", err)
	}
	noMarker := map[string]any{"web": "https://s3/w", "thumbnail": "https://s3/t"}
	for name, bad := range map[string]map[string]any{
		"no id":          {"event": "media.ready", "data": photo},
		"unknown":        {"id": "1-0", "event": "media.deleted", "data": photo},
		"no marker":      {"id": "1-0", "event": "media.ready", "data": with(photo, "urls", noMarker)},
		"ready, no URLs": {"id": "1-0", "event": "media.ready", "data": with(photo, "urls", map[string]any{"web": nil, "thumbnail": nil, "marker": nil})},
		"ready, no size": {"id": "1-0", "event": "media.ready", "data": with(photo, "width", 0)},
		"pending, a URL": {"id": "1-0", "event": "media.ready", "data": with(with(photo, "status", "pending"), "thumbhash", nil)},
		"unknown status": {"id": "1-0", "event": "media.ready", "data": with(photo, "status", "done")},
		"resync":         {"event": "resync", "data": map[string]any{"x": 1}},
	} {
		if schema.VisitJSON(bad, openapi3.EnableJSONSchema2020()) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for key, val := range m {
		if key != k {
			out[key] = val
		}
	}
	return out
}
