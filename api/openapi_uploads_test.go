package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/guidepost/guidepost/internal/testkit"
)

// The direct-upload answers with part checksums declared, each checked
// against api/openapi.yaml: the declaration (201, and 400 for a wrong
// count), the upload with a part received (each part's signed headers),
// the list, and the 409 of a complete with a part missing.
func TestDirectUploadsAnswerAsDocumented(t *testing.T) {
	c := newContract(t)
	_, token := c.guest()
	const partSize = 5 << 20
	data := make([]byte, partSize+1000)
	for i := range data {
		data[i] = byte(i * 31)
	}
	whole := sha256.Sum256(data)
	var sums []string
	for off := 0; off < len(data); off += partSize {
		s := sha256.Sum256(data[off:min(off+partSize, len(data))])
		sums = append(sums, hex.EncodeToString(s[:]))
	}
	decl := map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(whole[:]), "content_type": "image/jpeg",
		"part_size": partSize, "part_sha256": sums}
	if a := c.call("POST", "/v1/uploads", token, map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(whole[:]),
		"content_type": "image/jpeg", "part_sha256": sums[:1]}); a.status != http.StatusBadRequest {
		t.Fatalf("one checksum for two parts: %d %s", a.status, a.raw)
	}
	a := c.call("POST", "/v1/uploads", token, decl)
	var u struct {
		ID    string `json:"id"`
		Parts []struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"parts"`
		Received []struct{} `json:"received"`
	}
	a.json(t, &u)
	if a.status != http.StatusCreated || len(u.Parts) != 2 {
		t.Fatalf("declare: %d %s", a.status, a.raw)
	}
	if code := testkit.PutPart(u.Parts[0].URL, data[:partSize], u.Parts[0].Headers); code != http.StatusOK {
		t.Fatalf("part 1: %d", code)
	}
	c.call("GET", "/v1/uploads/"+u.ID, token, nil).json(t, &u)
	if len(u.Parts) != 1 || len(u.Received) != 1 {
		t.Fatalf("after part 1: %+v", u)
	}
	c.call("GET", "/v1/uploads", token, nil)
	if a := c.call("POST", "/v1/uploads/"+u.ID+"/complete", token, nil); a.status != http.StatusConflict {
		t.Fatalf("complete with part 2 missing: %d %s", a.status, a.raw)
	}
}
