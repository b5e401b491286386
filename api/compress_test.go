package api

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/prometheus/client_golang/prometheus"
)

// compressServer is the real router with test routes behind the same
// middleware chain.
func compressServer(t *testing.T) *Server {
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{})
	big := bytes.Repeat([]byte(`{"id":"0192f0c1-0000-7000-8000-000000000001","title":"Gyeongbokgung Palace: at night"},`), 40)
	big = append(append([]byte(`{"items":[`), big[:len(big)-1]...), `]}`...)
	s.engine.GET("/t/big", func(c *gin.Context) { c.Data(200, answerType, big) })
	s.engine.GET("/t/small", func(c *gin.Context) { c.Data(200, answerType, []byte(`{"ok":true}`)) })
	s.engine.GET("/t/jpeg", func(c *gin.Context) { c.Data(200, "image/jpeg", bytes.Repeat([]byte{0xff}, 4096)) })
	s.engine.GET("/t/encoded", func(c *gin.Context) {
		c.Header("Content-Encoding", "br")
		c.Data(200, answerType, bytes.Repeat([]byte{'x'}, 4096))
	})
	// A handler with a strong ETag that answers 304 on its own tag only,
	// unaware of compression.
	s.engine.GET("/t/tagged", func(c *gin.Context) {
		c.Header("ETag", `"v42"`)
		for tag := range strings.SplitSeq(c.GetHeader("If-None-Match"), ",") {
			if strings.TrimSpace(tag) == `"v42"` {
				c.Status(http.StatusNotModified)
				return
			}
		}
		c.Data(200, answerType, big)
	})
	s.engine.GET("/t/stream", func(c *gin.Context) {
		c.Header("Content-Type", "text/event-stream")
		c.Status(200)
		c.Writer.WriteString(strings.Repeat("data: first\n\n", 100))
		c.Writer.Flush()
		time.Sleep(300 * time.Millisecond)
		c.Writer.WriteString("data: second\n\n")
	})
	return s
}

func get(t *testing.T, s *Server, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

func decode(t *testing.T, coding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		return body
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", coding, err)
	}
	return out
}

// Large JSON goes out in the coding the client prefers, and decodes to the
// very bytes the handler wrote; every JSON answer says it varies.
func TestLargeJSONIsCompressedAsTheClientAsks(t *testing.T) {
	s := compressServer(t)
	identity := get(t, s, "/t/big")
	if identity.Header().Get("Content-Encoding") != "" || identity.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("no Accept-Encoding: %v", identity.Header())
	}
	for accept, want := range map[string]string{
		"gzip":                         "gzip",
		"zstd":                         "zstd",
		"gzip, deflate, br, zstd":      "zstd",
		"zstd;q=0.5, gzip":             "gzip",
		"*":                            "zstd",
		"*;q=0.1, zstd;q=0":            "gzip",
		"br":                           "",
		"gzip;q=0, zstd;q=0":           "",
		"identity":                     "",
		"GZIP;q=1.0":                   "gzip",
		" gzip ; q=0.8 , zstd ; q=0.9": "zstd",
		"zstd, zstd;q=0, gzip;q=0.2":   "gzip", // the last weight named counts
		"ZsTd;q=-1, *;q=0.5":           "gzip", // named, refused: "*" does not bring it back
		"x-gzip, deflate":              "",
	} {
		rec := get(t, s, "/t/big", "Accept-Encoding", accept)
		h := rec.Header()
		if got := h.Get("Content-Encoding"); got != want {
			t.Errorf("Accept-Encoding %q: coding %q, want %q", accept, got, want)
			continue
		}
		if h.Get("Vary") != "Accept-Encoding" || h.Get("Content-Length") != "" && want != "" {
			t.Errorf("Accept-Encoding %q: headers %v", accept, h)
		}
		if got := decode(t, want, rec.Body.Bytes()); !bytes.Equal(got, identity.Body.Bytes()) {
			t.Errorf("Accept-Encoding %q: decodes to %d bytes, want the %d the handler wrote", accept, len(got), identity.Body.Len())
		}
		if want != "" && rec.Body.Len() >= identity.Body.Len()/2 {
			t.Errorf("Accept-Encoding %q: %d bytes of %d", accept, rec.Body.Len(), identity.Body.Len())
		}
	}
}

// Small answers, images and bodies a handler encoded itself go out as they
// are.
func TestWhatIsNotWorthCompressingPassesUntouched(t *testing.T) {
	s := compressServer(t)
	for path, vary := range map[string]bool{"/t/small": true, "/t/jpeg": false, "/t/encoded": true} {
		rec := get(t, s, path, "Accept-Encoding", "gzip, zstd")
		if enc := rec.Header().Get("Content-Encoding"); enc != "" && !(path == "/t/encoded" && enc == "br") {
			t.Errorf("%s: Content-Encoding %q", path, enc)
		}
		if got := rec.Header().Get("Vary") == "Accept-Encoding"; got != vary {
			t.Errorf("%s: Vary %q", path, rec.Header().Get("Vary"))
		}
	}
	// The router's own problems, and the OpenAPI document, are text too.
	if rec := get(t, s, "/openapi.yaml", "Accept-Encoding", "gzip"); rec.Header().Get("Content-Encoding") != "gzip" ||
		!bytes.Equal(decode(t, "gzip", rec.Body.Bytes()), OpenAPI) {
		t.Errorf("/openapi.yaml: %v", rec.Header())
	}
}

// A compressed answer has its own strong ETag; sent back, it revalidates
// to a 304 carrying that same tag, and the identity tag still works.
func TestCompressedAnswersKeepTheirOwnETag(t *testing.T) {
	s := compressServer(t)
	plain := get(t, s, "/t/tagged")
	gz := get(t, s, "/t/tagged", "Accept-Encoding", "gzip")
	zs := get(t, s, "/t/tagged", "Accept-Encoding", "zstd")
	if plain.Header().Get("ETag") != `"v42"` || gz.Header().Get("ETag") != `"v42-gzip"` || zs.Header().Get("ETag") != `"v42-zstd"` {
		t.Fatalf("tags: identity %q gzip %q zstd %q", plain.Header().Get("ETag"), gz.Header().Get("ETag"), zs.Header().Get("ETag"))
	}
	for _, tc := range []struct{ accept, sent string }{
		{"gzip", `"v42-gzip"`}, {"zstd", `"v42-zstd"`}, {"", `"v42"`}, {"gzip", `"other", "v42-gzip"`},
	} {
		rec := get(t, s, "/t/tagged", "Accept-Encoding", tc.accept, "If-None-Match", tc.sent)
		want := strings.TrimSpace(tc.sent[strings.LastIndex(tc.sent, ",")+1:])
		if rec.Code != http.StatusNotModified || rec.Header().Get("ETag") != want || rec.Body.Len() != 0 {
			t.Errorf("If-None-Match %s: %d ETag %q, want 304 %s", tc.sent, rec.Code, rec.Header().Get("ETag"), want)
		}
		if rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("If-None-Match %s: 304 without Vary", tc.sent)
		}
	}
	if rec := get(t, s, "/t/tagged", "Accept-Encoding", "gzip", "If-None-Match", `"v41-gzip"`); rec.Code != 200 {
		t.Errorf("a stale tag: %d", rec.Code)
	}
}

// An event stream reaches the client as it is written, never held back to
// be compressed.
func TestEventStreamsAreNotHeld(t *testing.T) {
	srv := httptest.NewServer(compressServer(t).Handler())
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/t/stream", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "data: first\n" || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("%q %v %v", line, err, resp.Header)
	}
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Fatalf("the first event took %s: held until the handler ended", took)
	}
}

// Files served with http.ServeContent (the map page): a whole file is
// compressed under its own tag and revalidates to 304; a range is of the
// identity bytes and is never compressed.
func TestServeContentFilesCompressAndRange(t *testing.T) {
	s := compressServer(t)
	full := get(t, s, "/map/vendor/maplibre-gl.css", "Accept-Encoding", "gzip")
	tag := full.Header().Get("ETag")
	if full.Code != 200 || full.Header().Get("Content-Encoding") != "gzip" || !strings.HasSuffix(tag, `-gzip"`) ||
		full.Header().Get("Accept-Ranges") != "" {
		t.Fatalf("whole file: %d %v", full.Code, full.Header())
	}
	plain := get(t, s, "/map/vendor/maplibre-gl.css")
	if !bytes.Equal(decode(t, "gzip", full.Body.Bytes()), plain.Body.Bytes()) {
		t.Fatal("the gzipped file does not decode to the file")
	}
	if rec := get(t, s, "/map/vendor/maplibre-gl.css", "Accept-Encoding", "gzip", "If-None-Match", tag); rec.Code != 304 ||
		rec.Header().Get("ETag") != tag {
		t.Errorf("revalidating: %d %q", rec.Code, rec.Header().Get("ETag"))
	}
	part := get(t, s, "/map/vendor/maplibre-gl.css", "Accept-Encoding", "gzip", "Range", "bytes=0-99")
	if part.Code != 206 || part.Header().Get("Content-Encoding") != "" || !bytes.Equal(part.Body.Bytes(), plain.Body.Bytes()[:100]) {
		t.Errorf("range: %d %v", part.Code, part.Header())
	}
}
