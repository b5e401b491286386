package api

import (
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Answers are compressed when the client accepts it, the type is text
// (JSON, problem+json, YAML, HTML) and the body is at least compressMin
// bytes: below that the coding's framing and the CPU cost more than the
// bytes saved (BENCHMARKS.md has the measurements). Images, vector tiles,
// event streams and anything a handler has encoded itself pass untouched.
const compressMin = 1024

// Codings, in the order chosen when the client weighs them equally: zstd
// sends 10% fewer bytes than gzip for about the same CPU.
const (
	codingZstd = "zstd"
	codingGzip = "gzip"
)

// encoder is what gzip.Writer and zstd.Encoder have in common.
type encoder interface {
	io.WriteCloser
	Flush() error
	Reset(io.Writer)
}

// gzip level 1 and zstd's fastest level. On the all-Seoul viewport answer
// (42 KB) gzip 1 costs 47 µs of CPU for 8.8 KB where the default level 6
// costs 104 µs for 8.0 KB; zstd's fastest 51 µs for 7.9 KB, smaller than
// its own default level's. Serving the answer uncompressed costs ~27 µs,
// so a slower level would more than triple it to save a few hundred
// bytes (BENCHMARKS.md).
var encoders = map[string]*sync.Pool{
	codingGzip: {New: func() any {
		w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
		return w
	}},
	codingZstd: {New: func() any {
		// A window over 8 MiB may be refused by browsers (RFC 8878 §3.1.1.1.2);
		// 1 MiB covers any answer and keeps a pooled encoder small.
		w, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
		return w
	}},
}

// compressAnswers wraps the writer; see compressWriter. The writer lives
// in the request's state, allocated once for the whole request.
func compressAnswers(c *gin.Context) {
	w := &requestOf(c).compress
	*w = compressWriter{ResponseWriter: c.Writer, coding: chooseCoding(headerValue(c.Request.Header, "Accept-Encoding")),
		sent: unsuffixTags(c.Request), head: c.Request.Method == http.MethodHead}
	c.Writer = w
	defer func() {
		w.finish()
		c.Writer = w.ResponseWriter
	}()
	c.Next()
}

// A compressed answer is another representation of the resource, so it
// gets its own strong ETag: the handler's with the coding as a suffix
// ("abc" becomes "abc-gzip"). A client revalidating sends the suffixed
// tag back; unsuffixTags hands the handler its own tag so it can answer
// 304, and the 304 carries the tag the client holds. Weak tags are left
// alone: they already say "equivalent, not byte-identical".
func suffixTag(tag, coding string) string {
	if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return tag
	}
	return tag[:len(tag)-1] + "-" + coding + `"`
}

// unsuffixTags rewrites If-None-Match to the handler's own tags and
// returns, for each, the tag the client sent.
func unsuffixTags(r *http.Request) map[string]string {
	inm := headerValue(r.Header, "If-None-Match")
	if !strings.Contains(inm, "-"+codingGzip+`"`) && !strings.Contains(inm, "-"+codingZstd+`"`) {
		return nil
	}
	sent := map[string]string{}
	tags := strings.Split(inm, ",")
	for i, t := range tags {
		t = strings.TrimSpace(t)
		tags[i] = t
		for _, coding := range []string{codingGzip, codingZstd} {
			if base, ok := strings.CutSuffix(t, "-"+coding+`"`); ok && strings.HasPrefix(base, `"`) {
				tags[i] = base + `"`
				sent[tags[i]] = t
			}
		}
	}
	r.Header.Set("If-None-Match", strings.Join(tags, ", "))
	return sent
}

// chooseCoding picks zstd or gzip from Accept-Encoding by weight ("" when
// the client takes neither). A coding weighted q=0 is refused, also
// through "*".
func chooseCoding(accept string) string {
	if accept == "" {
		return ""
	}
	// The weights of zstd, gzip and "*", as named last; not a map: this
	// runs for every request.
	var q [3]float64
	var named [3]bool
	for part := range strings.SplitSeq(accept, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		w := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				w = f
			}
		}
		i := -1
		switch name = strings.TrimSpace(name); {
		case strings.EqualFold(name, codingZstd):
			i = 0
		case strings.EqualFold(name, codingGzip):
			i = 1
		case name == "*":
			i = 2
		}
		if i >= 0 {
			q[i], named[i] = w, true
		}
	}
	best, bestQ := "", 0.0
	for i, coding := range [...]string{codingZstd, codingGzip} {
		w := -1.0
		switch {
		case named[i]:
			w = q[i]
		case named[2]:
			w = q[2]
		}
		if w > bestQ {
			best, bestQ = coding, w
		}
	}
	return best
}

// compressible reports whether a body of this Content-Type is text worth
// compressing. An event stream is text but must reach the client as each
// event is written.
func compressible(contentType string) bool {
	switch contentType { // the map answers' types, without parsing them
	case answerType:
		return true
	case mvtType:
		return false
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch {
	case mt == "text/event-stream":
		return false
	case strings.HasPrefix(mt, "text/"), mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/yaml", mt == "application/javascript":
		return true
	}
	return false
}

// What a compressWriter does with the body, decided at its first byte.
const (
	undecided = iota
	buffering // compressible: holding the first bytes until compressMin
	encoding  // compressing into enc
	passing   // written as it comes
)

// compressWriter holds an answer's first compressMin bytes; an answer that
// reaches them is compressed, a smaller one goes out as it is. Headers are
// still unsent while it holds (gin writes them with the first byte), so it
// can set Content-Encoding and the ETag then.
type compressWriter struct {
	gin.ResponseWriter
	coding string            // chosen from Accept-Encoding; "" for none
	sent   map[string]string // see unsuffixTags
	head   bool
	state  int
	buf    []byte
	enc    encoder
}

func (w *compressWriter) Write(p []byte) (int, error) {
	if w.state == undecided {
		w.decide()
	}
	switch w.state {
	case buffering:
		if len(w.buf)+len(p) < compressMin {
			w.buf = append(w.buf, p...)
			return len(p), nil
		}
		if err := w.start(); err != nil {
			return 0, err
		}
		fallthrough
	case encoding:
		return w.enc.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

func (w *compressWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// decide looks at the headers the handler set before its first byte.
func (w *compressWriter) decide() {
	h := w.Header()
	w.state = passing
	if !compressible(headerValue(h, "Content-Type")) {
		return
	}
	addVary(h)
	status := w.Status()
	switch {
	case w.coding == "", w.head, headerValue(h, "Content-Encoding") != "", status < 200, status == http.StatusNoContent,
		status == http.StatusNotModified, strings.Contains(headerValue(h, "Cache-Control"), "no-transform"),
		status == http.StatusPartialContent: // its Content-Range counts identity bytes
		return
	}
	if n, err := strconv.Atoi(headerValue(h, "Content-Length")); err == nil && n < compressMin {
		return
	}
	w.state = buffering
}

// start sends the headers of a compressed answer and the held bytes.
func (w *compressWriter) start() error {
	h := w.Header()
	h.Del("Content-Length")
	h.Del("Accept-Ranges") // ranges are served of the identity bytes only
	h.Set("Content-Encoding", w.coding)
	if tag := h.Get("ETag"); tag != "" {
		h.Set("ETag", suffixTag(tag, w.coding))
	}
	w.enc = encoders[w.coding].Get().(encoder)
	w.enc.Reset(w.ResponseWriter)
	w.state = encoding
	held := w.buf
	w.buf = nil
	_, err := w.enc.Write(held)
	return err
}

// flushHeld sends held bytes as they are: the answer stayed small, or its
// handler wants them out now.
func (w *compressWriter) flushHeld() {
	w.state = passing
	if len(w.buf) > 0 {
		w.ResponseWriter.Write(w.buf)
		w.buf = nil
	}
}

func (w *compressWriter) Flush() {
	switch w.state {
	case buffering:
		w.flushHeld()
	case encoding:
		w.enc.Flush()
	}
	w.ResponseWriter.Flush()
}

// WriteHeaderNow is how gin sends an answer without a body (304, 204).
func (w *compressWriter) WriteHeaderNow() {
	if w.state == undecided {
		w.bodiless()
	}
	w.ResponseWriter.WriteHeaderNow()
}

// bodiless fixes the headers of an answer that has no body: a 304 says
// which representation the client may keep, under the tag it sent.
func (w *compressWriter) bodiless() {
	w.state = passing
	if w.Status() != http.StatusNotModified {
		return
	}
	h := w.Header()
	addVary(h)
	if tag, ok := w.sent[headerValue(h, "Etag")]; ok {
		h.Set("ETag", tag)
	}
}

func (w *compressWriter) Written() bool { return w.ResponseWriter.Written() || len(w.buf) > 0 }

func (w *compressWriter) Size() int { return w.ResponseWriter.Size() + len(w.buf) }

// Unwrap lets http.ResponseController reach the connection (read
// deadlines on request bodies).
func (w *compressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish ends the answer once the handlers have returned.
func (w *compressWriter) finish() {
	switch w.state {
	case undecided:
		w.bodiless()
	case buffering:
		w.flushHeld()
	case encoding:
		w.enc.Close()
		w.enc.Reset(nil)
		encoders[w.coding].Put(w.enc)
		w.enc = nil
	}
}

func addVary(h http.Header) {
	for _, v := range h["Vary"] {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}
