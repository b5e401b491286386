package main

import (
	"bytes"
	"crypto/sha256"
	"image/jpeg"
	"io"
	"mime"
	"mime/multipart"
	"testing"
)

// Each upload body is valid multipart holding a valid JPEG, and no two are
// byte-identical (the server deduplicates a user's identical bytes).
func TestUploadBodiesAreDistinctValidJPEGs(t *testing.T) {
	p := makePhotos([]int{30_000})[0]
	if n := len(p.jpeg); n < 25_000 || n > 35_000 {
		t.Errorf("photo is %d bytes, want ~30000", n)
	}
	up := newUploader()
	seen := map[[32]byte]bool{}
	for seq := range uint64(3) {
		r, size := up.body(p, seq)
		raw, _ := io.ReadAll(r)
		if int64(len(raw)) != size {
			t.Fatalf("declared %d bytes, body has %d", size, len(raw))
		}
		_, params, err := mime.ParseMediaType(up.ctype)
		if err != nil {
			t.Fatal(err)
		}
		part, err := multipart.NewReader(bytes.NewReader(raw), params["boundary"]).NextPart()
		if err != nil || part.FormName() != "file" {
			t.Fatalf("part: %v %q", err, part.FormName())
		}
		file, _ := io.ReadAll(part)
		if _, err := jpeg.Decode(bytes.NewReader(file)); err != nil {
			t.Fatalf("upload %d is not a decodable JPEG: %v", seq, err)
		}
		h := sha256.Sum256(file)
		if seen[h] {
			t.Fatalf("upload %d repeats an earlier body", seq)
		}
		seen[h] = true
	}
}

func TestPhotoSizesNearTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes a 2 MB photo")
	}
	p := makePhotos([]int{2_000_000})[0]
	if n := len(p.jpeg); n < 1_800_000 || n > 2_200_000 {
		t.Errorf("2 MB photo is %d bytes", n)
	}
	if p.label != "2MB" {
		t.Errorf("label %q", p.label)
	}
}
