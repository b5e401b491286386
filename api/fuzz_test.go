package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
)

// Every body a client can send is either decoded or refused as a client
// error naming a field with a code; none panics or becomes an internal
// error.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{`{"title":"t","lat":1,"lng":2,"tags":["a"]}`, `{"title":`, `{"admin":true}`, ``, `[]`,
		`{"lat":"x"}`, `{"title":"a"}{"title":"b"}`, `{"tags":[1]}`, `{"title":"\u0000"}`, "{\"title\":\"\xff\"}", `null`, `{"lat":1e999}`} {
		f.Add([]byte(seed))
	}
	gin.SetMode(gin.ReleaseMode)
	f.Fuzz(func(t *testing.T, body []byte) {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodPost, "/v1/guides", bytes.NewReader(body))
		c.Request.Header.Set("Content-Type", "application/json")
		var dst struct {
			Title    *string   `json:"title"`
			Lat      *float64  `json:"lat"`
			Lng      *float64  `json:"lng"`
			Tags     *[]string `json:"tags"`
			MediaIDs []string  `json:"media_ids"`
		}
		err := decodeJSON(c, &dst)
		if err == nil {
			if !json.Valid(body) {
				t.Fatalf("%q decoded though it is not JSON", body)
			}
			return
		}
		switch code := guidepost.ErrorCode(err); code {
		case guidepost.EINVALID:
			for _, fe := range guidepost.ErrorFields(err) {
				// "" names the body as a whole; no member is called "body".
				if fe.Code == "" || fe.Message == "" || fe.Field == "body" {
					t.Fatalf("%q: a field error without a code or message, or misnamed: %+v", body, fe)
				}
			}
		case guidepost.ETOOLARGE:
		default:
			t.Fatalf("%q: code %q: %v", body, code, err)
		}
	})
}

// A query string is either refused with a 400 naming a parameter, or one
// that the standard library parses without dropping anything.
func FuzzStrictQuery(f *testing.F) {
	for _, seed := range []string{"lat=10&lng=10&cursor=AAAA%%%%", "tag=%FF", "a=1;b=2", "", "&&", "=", "%zz=1", "a=%E2%80%AE",
		"bbox=1,2,3,4&limit=3", "a=1&a=2", "%"} {
		f.Add(seed)
	}
	gin.SetMode(gin.ReleaseMode)
	f.Fuzz(func(t *testing.T, raw string) {
		rec := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(rec)
		c.Request = httptest.NewRequest(http.MethodGet, "/v1/guides", nil)
		c.Request.URL.RawQuery = raw
		strictQuery(c)
		if c.IsAborted() {
			var p Problem
			if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &p) != nil || len(p.Errors) != 1 {
				t.Fatalf("%q: %d %s", raw, rec.Code, rec.Body)
			}
			return
		}
		if _, err := url.ParseQuery(raw); err != nil {
			t.Fatalf("%q passed, but the standard library drops part of it: %v", raw, err)
		}
	})
}
