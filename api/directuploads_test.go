package api_test

import (
	"fmt"
	"strings"
	"testing"
)

// A file declared again while its upload is open answers 200 with that
// upload; GET /v1/uploads lists the caller's open uploads, nobody else's.
func TestOpenUploadsAreFoundAgain(t *testing.T) {
	f := newFullStack(t)
	_, token := f.signup("lost@example.com")
	_, other := f.signup("other@example.com")
	decl := fmt.Sprintf(`{"bytes":6000000,"sha256":"%064x","content_type":"image/jpeg"}`, 11)
	first := f.doRaw("POST", "/v1/uploads", token, "application/json", strings.NewReader(decl), 201)
	status, header, raw := f.send("POST", "/v1/uploads", token, "application/json", strings.NewReader(decl))
	if status != 200 || !strings.Contains(string(raw), `"id":"`+first["id"].(string)+`"`) || header.Get("Location") != "/v1/uploads/"+first["id"].(string) {
		t.Fatalf("declared again: %d %s", status, raw)
	}
	list := f.doRaw("GET", "/v1/uploads", token, "", nil, 200)
	items := list["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != first["id"] || len(items[0].(map[string]any)["parts"].([]any)) != 2 {
		t.Fatalf("list: %v", list)
	}
	if l := f.doRaw("GET", "/v1/uploads", other, "", nil, 200); len(l["items"].([]any)) != 0 {
		t.Fatalf("another user's list: %v", l)
	}
	problem(t, f.do("GET", "/v1/uploads?state=open", token, ""), 400, "state")
	if status, _, _ := f.send("DELETE", "/v1/uploads/"+first["id"].(string), token, "", nil); status != 204 {
		t.Fatalf("cancel: %d", status)
	}
	if l := f.doRaw("GET", "/v1/uploads", token, "", nil, 200); len(l["items"].([]any)) != 0 {
		t.Fatalf("after cancelling: %v", l)
	}
}
