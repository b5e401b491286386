package api_test

import (
	"encoding/base64"
	"encoding/hex"
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

// Each part's SHA-256 may be declared with the file; a wrong count, a
// malformed checksum or a part size S3 refuses is a 400 naming the field,
// and each part of the answer carries the header its URL signs.
func TestUploadDeclaresPartChecksums(t *testing.T) {
	f := newFullStack(t)
	_, token := f.signup("parts@example.com")
	sum := func(i int) string { return fmt.Sprintf("%064x", i) }
	decl := func(extra string) string {
		return fmt.Sprintf(`{"bytes":6000000,"sha256":"%064x","content_type":"image/jpeg"%s}`, 12, extra)
	}
	problem(t, f.do("POST", "/v1/uploads", token, decl(`,"part_sha256":["`+sum(1)+`"]`)), 400, "part_sha256")
	problem(t, f.do("POST", "/v1/uploads", token, decl(`,"part_sha256":["`+sum(1)+`","zz"]`)), 400, "part_sha256[1]")
	problem(t, f.do("POST", "/v1/uploads", token, decl(`,"part_size":1024`)), 400, "part_size")
	up := f.doRaw("POST", "/v1/uploads", token, "application/json",
		strings.NewReader(decl(`,"part_size":5242880,"part_sha256":["`+sum(1)+`","`+sum(2)+`"]`)), 201)
	raw, _ := hex.DecodeString(sum(2))
	parts := up["parts"].([]any)
	if len(parts) != 2 {
		t.Fatalf("parts: %v", parts)
	}
	headers, _ := parts[1].(map[string]any)["headers"].(map[string]any)
	if len(headers) != 1 || headers["x-amz-checksum-sha256"] != base64.StdEncoding.EncodeToString(raw) {
		t.Fatalf("part 2 signs %v", parts[1])
	}
}
