package testkit

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"testing"
)

// PutPart PUTs body to a presigned part URL with the headers its signature
// names, and returns the status; 0 when the server reset the connection
// before answering (S3 may refuse before a body ends).
func PutPart(rawURL string, body []byte, header map[string]string) int {
	req, err := http.NewRequest(http.MethodPut, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// CutPut sends the request line and headers of a PUT of body (its whole
// Content-Length, and header) on a raw TCP connection, then only its first
// n bytes, and drops the connection: a phone losing its network mid-part.
func CutPut(t testing.TB, rawURL string, body []byte, n int, header map[string]string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", u.RequestURI(), u.Host, len(body))
	for k, v := range header {
		fmt.Fprintf(conn, "%s: %s\r\n", k, v)
	}
	fmt.Fprint(conn, "\r\n")
	conn.Write(body[:n])
}
