package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/guidepost/guidepost"
)

// client sends the tool's requests and records each one. It is shared by all
// virtual users: one Transport keeps the connection pool (keep-alive, like a
// fleet of app instances behind one NAT would not, but the server sees many
// tokens, which is what matters for per-user logic).
type client struct {
	base string
	also []string // more API processes (-also): users are spread over all
	hc   *http.Client
	rec  *recorder
	// forwardUsers gives each user it creates an address of its own, sent
	// as X-Forwarded-For on all of that user's requests (abuse: the server
	// trusts the generator as a proxy, so per-address limits see many
	// clients, as behind a load balancer, and the attacker apart).
	forwardUsers bool
	// tee, when not nil, records every request too (abuse: the probe's
	// attacked halves, all side doors together, are the run's totals).
	tee *recorder

	next atomic.Uint64 // anonymous requests take the targets in turn
}

// baseFor is the API process r goes to: a user always talks to the same
// one (as an app instance would, until it reconnects), anonymous requests
// rotate.
func (c *client) baseFor(r request) string {
	if len(c.also) == 0 {
		return c.base
	}
	n := len(c.also) + 1
	i := 0
	if r.user != nil {
		i = r.user.idx % n
	} else {
		i = int(c.next.Add(1) % uint64(n))
	}
	if i == 0 {
		return c.base
	}
	return c.also[i-1]
}

// request is one API call. body may be a streaming reader (uploads are
// assembled from a shared photo without copying it), so size must be given.
type request struct {
	kind   string
	method string
	path   string // with query
	user   *user  // nil: anonymous
	body   io.Reader
	size   int64
	ctype  string
	out    any    // JSON-decoded from a 2xx answer when not nil
	from   string // X-Forwarded-For when the request has no user
	// ifNoneMatch is sent as If-None-Match; etag, when not nil, receives
	// the answer's ETag.
	ifNoneMatch string
	etag        *string
}

// outcome is what a caller needs to know about an answer.
type outcome struct {
	code       int
	fail       failKind
	retryAfter time.Duration
}

func (o outcome) ok() bool { return o.fail == failNone }

func newHTTPClient(timeout time.Duration, conns int) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // measure the server, not gzip on both sides
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// do sends r, reads the whole answer (keep-alive needs it) and records it.
func (c *client) do(ctx context.Context, r request) outcome {
	start := time.Now()
	code, in, retry, err, derr := c.send(ctx, r)
	lat := time.Since(start)
	fk := classify(code, err)
	if err != nil && ctx.Err() != nil {
		fk = failCanceled
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	} else if derr != nil { // a 2xx whose body is not the contract's JSON
		fk, msg = failBadAnswer, derr.Error()
	}
	c.rec.record(r.kind, start, lat, code, fk, msg, in, max(r.size, 0))
	if c.tee != nil {
		c.tee.record(r.kind, start, lat, code, fk, msg, in, max(r.size, 0))
	}
	return outcome{code: code, fail: fk, retryAfter: retry}
}

// send returns the transport error err apart from derr, a body that did not
// decode: the first is the network's or server's failure, the second a
// contract violation.
func (c *client) send(ctx context.Context, r request) (code int, in int64, retry time.Duration, err, derr error) {
	url := c.baseFor(r) + r.path
	if strings.HasPrefix(r.path, "http://") || strings.HasPrefix(r.path, "https://") {
		url = r.path // a presigned S3 URL: direct uploads send parts there
	}
	req, err := http.NewRequestWithContext(ctx, r.method, url, r.body)
	if err != nil {
		return 0, 0, 0, err, nil
	}
	if r.body != nil {
		req.ContentLength = r.size
		req.Header.Set("Content-Type", r.ctype)
	}
	req.Header.Set("Accept", "application/json")
	if r.user != nil {
		req.Header.Set("Authorization", r.user.auth)
		if r.user.addr != "" {
			req.Header.Set("X-Forwarded-For", r.user.addr)
		}
	}
	if r.from != "" {
		req.Header.Set("X-Forwarded-For", r.from)
	}
	if r.ifNoneMatch != "" {
		req.Header.Set("If-None-Match", r.ifNoneMatch)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, 0, 0, err, nil
	}
	defer resp.Body.Close()
	code = resp.StatusCode
	if r.etag != nil {
		*r.etag = resp.Header.Get("ETag")
	}
	retry = parseRetryAfter(resp.Header.Get("Retry-After"))
	body := &countingReader{r: resp.Body}
	if r.out != nil && code >= 200 && code < 300 {
		if e := json.NewDecoder(body).Decode(r.out); e != nil {
			if transportFailure(e) {
				err = e
			} else {
				derr = fmt.Errorf("decode %s answer: %w", r.kind, e)
			}
		}
	}
	if _, cerr := io.Copy(io.Discard, body); err == nil {
		err = cerr
	}
	return code, body.n, retry, err, derr
}

// transportFailure tells a body read that failed in the network (timeout,
// reset, truncated) from a body that arrived but is not JSON (an empty body
// is io.EOF: a contract violation, not a network failure).
func transportFailure(e error) bool {
	if errors.Is(e, io.EOF) && !errors.Is(e, io.ErrUnexpectedEOF) {
		return false
	}
	switch classifyErr(e) {
	case failTimeout, failConn, failCanceled:
		return true
	}
	return false
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

// retrying sends r up to attempts times while the failure is transient
// (shed, timeout, dropped connection, 5xx), honouring Retry-After up to cap.
// Only setup uses it: during the load, a failure is a result to report.
func (c *client) retrying(ctx context.Context, r request, attempts int, newBody func() (io.Reader, int64)) outcome {
	var o outcome
	backoff := 100 * time.Millisecond
	for i := range attempts {
		if newBody != nil {
			r.body, r.size = newBody()
		}
		o = c.do(ctx, r)
		if o.ok() || o.fail == fail4xx && !rejected(o.code) || o.fail == failCanceled || i == attempts-1 {
			return o
		}
		wait := min(max(o.retryAfter, backoff), 5*time.Second)
		if !sleepCtx(ctx, wait) {
			return o
		}
		backoff *= 2
	}
	return o
}

// jsonBody returns a body factory for retrying: each attempt needs a fresh
// reader over the same bytes.
func jsonBody(b []byte) func() (io.Reader, int64) {
	return func() (io.Reader, int64) { return bytes.NewReader(b), int64(len(b)) }
}

// sleepCtx sleeps d or until ctx ends; it reports whether d elapsed.
var sleepCtx = guidepost.Sleep
