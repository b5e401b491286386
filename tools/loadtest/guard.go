package main

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// checkTarget parses the base URL and refuses anything but a loopback host
// unless allowRemote is set: a load test aimed at the wrong host is an attack.
// Host names other than "localhost" are refused without resolving them, since
// DNS answers can change between the check and the requests.
func checkTarget(raw string, allowRemote bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("target %q: want an http:// or https:// URL", raw)
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("target %q: no host", raw)
	}
	if allowRemote || isLoopbackHost(host) {
		return u, nil
	}
	return nil, fmt.Errorf("refusing non-loopback target %q (only 127.0.0.0/8, ::1 and localhost; pass -allow-remote to override)", raw)
}

// isLoopbackHost accepts literal loopback IPs (127.0.0.0/8, ::1, and their
// IPv4-mapped forms) and the name localhost.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
