package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"
)

type directPart struct {
	Number int    `json:"number"`
	Bytes  int64  `json:"bytes"`
	URL    string `json:"url"`
}

type directTicket struct {
	ID       string       `json:"id"`
	PartSize int64        `json:"part_size"`
	Parts    []directPart `json:"parts"`
}

// uploadDirect sends one distinct photo the direct way: declare it to the
// API, PUT its parts to the presigned S3 URLs, complete it through the API.
// Only the declaration and the completion cross the API; the parts are
// recorded under their own kind, so the API's share stands apart.
func (e *env) uploadDirect(ctx context.Context, u *user, p *photo) {
	data := e.up.raw(p, e.seq.Add(1))
	sum := sha256.Sum256(data)
	decl, _ := json.Marshal(map[string]any{"bytes": len(data), "sha256": hex.EncodeToString(sum[:]), "content_type": "image/jpeg"})
	var t directTicket
	o := e.c.do(ctx, request{kind: "upload:direct-" + p.label, method: http.MethodPost, path: "/v1/uploads",
		user: u, body: bytes.NewReader(decl), size: int64(len(decl)), ctype: "application/json", out: &t})
	if !o.ok() || o.code != http.StatusCreated {
		return
	}
	for _, part := range t.Parts {
		off := int64(part.Number-1) * t.PartSize
		o := e.c.do(ctx, request{kind: "direct:s3_part", method: http.MethodPut, path: part.URL,
			body: bytes.NewReader(data[off : off+part.Bytes]), size: part.Bytes, ctype: "application/octet-stream"})
		if !o.ok() {
			return
		}
	}
	var a mediaAnswer
	o = e.c.do(ctx, request{kind: "direct:complete", method: http.MethodPost, path: "/v1/uploads/" + t.ID + "/complete",
		user: u, out: &a})
	if o.ok() {
		e.media.accept(a, o.code, u, time.Now())
	}
}
