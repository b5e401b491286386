package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// SentinelScheme marks a REDIS_URL naming a Sentinel set instead of one
// server: redis-sentinel://host:port[,host:port…]/master-name?db=N.
const SentinelScheme = "redis-sentinel"

// Sentinel is a Redis primary found through Sentinel: clients ask the
// sentinels where the primary is and follow it when they promote a replica.
type Sentinel struct {
	MasterName string
	Addrs      []string // the sentinels, host:port
	DB         int
	Username   string // of the data nodes
	Password   string // of the data nodes; never logged
}

// ParseSentinelURL reads a redis-sentinel:// URL. Any other scheme is not
// a Sentinel set: it reports ok=false and leaves the URL to go-redis.
func ParseSentinelURL(raw string) (s Sentinel, ok bool, err error) {
	scheme, rest, found := strings.Cut(raw, "://")
	if !found || scheme != SentinelScheme {
		return Sentinel{}, false, nil
	}
	// url.Parse refuses several host:port pairs, so split the hosts first.
	hosts, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndex(hosts, "@"); at >= 0 {
		u, err := url.Parse("redis://" + hosts[:at+1] + "x")
		if err != nil {
			return Sentinel{}, true, fmt.Errorf("bad credentials")
		}
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
		hosts = hosts[at+1:]
	}
	for _, h := range strings.Split(hosts, ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(h))
		if err != nil || host == "" {
			return Sentinel{}, true, fmt.Errorf("sentinel %q: want host:port", h)
		}
		if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
			return Sentinel{}, true, fmt.Errorf("sentinel %q: bad port", h)
		}
		s.Addrs = append(s.Addrs, net.JoinHostPort(host, port))
	}
	path, query, _ := strings.Cut(path, "?")
	if s.MasterName = path; s.MasterName == "" || strings.Contains(path, "/") {
		return Sentinel{}, true, fmt.Errorf("want the master name as the path")
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return Sentinel{}, true, fmt.Errorf("bad query")
	}
	for k := range q {
		if k != "db" {
			return Sentinel{}, true, fmt.Errorf("unknown parameter %q (only db)", k)
		}
	}
	if v := q.Get("db"); v != "" {
		if s.DB, err = strconv.Atoi(v); err != nil || s.DB < 0 {
			return Sentinel{}, true, fmt.Errorf("db %q: want a database number", v)
		}
	}
	return s, true, nil
}
