package api_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guidepost/guidepost/api"
)

// idleBody sends path's headers announcing a 99-byte JSON body, one byte
// of it, and then nothing; it returns the answer, once there is one.
func idleBody(t *testing.T, addr, path string) (*http.Response, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: guidepost\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n{"); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		resp.Body.Close()
	}
	return resp, err
}

// Ten bodies that never arrive, on a server of two slots, leave both
// slots free: four are being received (BODY_MAX_PER_IP), the other six are
// refused at once with 429, and every other request is served. Before the
// body gate each idle body held a slot for 15 s, and the rest got 503.
func TestIdleBodiesHoldNoSlot(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.MaxInflight = 2
		d.Bodies = api.BodyLimits{PerAddr: 4, Grace: time.Minute}
	})
	addr := srv.Listener.Addr().String()
	token := guestToken(t, srv.URL) // a body too: before the idle ones take the address's places
	answers := make(chan *http.Response, 10)
	var wg sync.WaitGroup
	defer wg.Wait()
	for range 10 {
		wg.Go(func() {
			resp, _ := idleBody(t, addr, "/v1/auth/login")
			answers <- resp
		})
	}
	for range 6 {
		select {
		case resp := <-answers:
			if resp == nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" || !resp.Close ||
				resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("an idle body over the cap: %+v", resp)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the bodies over the cap were not refused")
		}
	}
	for deadline := time.Now().Add(20 * time.Second); metric(t, srv.URL, "guidepost_body_receiving") != 4; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%v bodies being received, want 4", metric(t, srv.URL, "guidepost_body_receiving"))
		}
	}
	h := &harness{t: t, srv: srv}
	for i := range 20 {
		if r := h.do("GET", "/v1/me", token, ""); r.status != 200 {
			t.Fatalf("request %d beside 4 idle bodies: %d %v", i, r.status, r.body)
		}
	}
	if held := metric(t, srv.URL, "guidepost_http_inflight"); held > 1 {
		t.Errorf("%v slots held beside the idle bodies (the /metrics scrape holds none)", held)
	}
	srv.CloseClientConnections() // the four idle bodies end
}

// A body that stalls past the grace is cut with a problem+json 408 and its
// connection closed, and gives its place back; one that trickles in
// faster than the minimum rate is served.
func TestSlowBodyIsCutWith408(t *testing.T) {
	srv, _ := uploadServer(t, func(d *testServer) {
		d.Bodies = api.BodyLimits{PerAddr: 1, MinRate: 1 << 10, Grace: time.Second}
	})
	addr := srv.Listener.Addr().String()
	for i := range 2 { // the second finds the first's place given back
		start := time.Now()
		resp, err := idleBody(t, addr, "/v1/guides")
		if err != nil || resp.StatusCode != 408 || !resp.Close || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("idle body %d: %v %+v", i, err, resp)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Fatalf("cut after %v: the grace is 1 s", took)
		}
	}
	if n := metric(t, srv.URL, "guidepost_body_too_slow_total"); n != 2 {
		t.Errorf("guidepost_body_too_slow_total %v, want 2", n)
	}
	pr, pw := io.Pipe()
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, part := range []string{`{"email":"nobody@example.com",`, `"password":"`, `wrong-password"}`} {
			time.Sleep(100 * time.Millisecond)
			pw.Write([]byte(part))
		}
		pw.Close()
	})
	req, _ := http.NewRequest("POST", srv.URL+"/v1/auth/login", pr)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(raw), "/problems/credentials") {
		t.Fatalf("a body trickling in on time: %d %s", resp.StatusCode, raw)
	}
}
