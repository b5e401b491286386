package api_test

import (
	"bytes"
	"math"
	"mime/multipart"
	"os"
	"strings"
	"testing"

	"github.com/guidepost/guidepost"
)

func photoFormOf(t *testing.T, name string) (string, *bytes.Buffer) {
	t.Helper()
	data, err := os.ReadFile("../testdata/photos/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	return mw.FormDataContentType(), &buf
}

// A guide is pinned on a photo as soon as its upload is accepted (no
// worker runs here: every photo stays pending), in every format that
// carries GPS; a photo without GPS is the one 422.
func TestPinOnAPendingPhoto(t *testing.T) {
	f := newFullStack(t)
	_, token := f.signup("pin@example.com")
	for name, at := range map[string][2]float64{ // where scripts/gen-testdata.sh put them
		"gps.jpg": {48.858370, 2.294481}, "gps.png": {37.566535, 126.977969},
		"gps.webp": {35.658581, 139.745433}, "gps.heic": {40.689247, -74.044502},
	} {
		ct, body := photoFormOf(t, name)
		m := f.doRaw("POST", "/v1/media", token, ct, body, 202)
		if m["status"] != "pending" {
			t.Fatalf("%s: %v", name, m)
		}
		g := f.doRaw("POST", "/v1/guides", token, "application/json",
			strings.NewReader(`{"title":"Pinned","location_from_media_id":"`+m["id"].(string)+`"}`), 201)
		if math.Abs(g["lat"].(float64)-at[0]) > 1e-4 || math.Abs(g["lng"].(float64)-at[1]) > 1e-4 {
			t.Fatalf("%s: pinned at %v, %v", name, g["lat"], g["lng"])
		}
	}
	ct, body := photoFormOf(t, "photo.jpg")
	m := f.doRaw("POST", "/v1/media", token, ct, body, 202)
	r := f.do("POST", "/v1/guides", token, `{"title":"Nowhere","location_from_media_id":"`+m["id"].(string)+`"}`)
	problem(t, r, 422, "location_from_media_id")
	if fieldCode(r, "location_from_media_id") != guidepost.FNOLOCATION {
		t.Fatalf("%v", r.body)
	}
}
