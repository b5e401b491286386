package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestSentinelURL(t *testing.T) {
	s, ok, err := ParseSentinelURL("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380, [::1]:26381/mymaster?db=3")
	want := Sentinel{MasterName: "mymaster", Addrs: []string{"127.0.0.1:26379", "127.0.0.1:26380", "[::1]:26381"}, DB: 3}
	if err != nil || !ok || !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v ok=%v err=%v", s, ok, err)
	}
	s, _, err = ParseSentinelURL("redis-sentinel://:pw@10.0.0.1:26379/m")
	if err != nil || s.Password != "pw" || s.DB != 0 || s.Addrs[0] != "10.0.0.1:26379" {
		t.Fatalf("with password: %+v %v", s, err)
	}
	if _, ok, err := ParseSentinelURL("redis://127.0.0.1:6379/0"); ok || err != nil {
		t.Fatalf("plain URL: ok=%v err=%v", ok, err)
	}
	for _, bad := range []string{
		"redis-sentinel://127.0.0.1:26379/",         // no master name
		"redis-sentinel://127.0.0.1/mymaster",       // no port
		"redis-sentinel://127.0.0.1:0/mymaster",     // bad port
		"redis-sentinel://127.0.0.1:1/m?db=x",       // bad db
		"redis-sentinel://127.0.0.1:1/m?timeout=1s", // unknown parameter
		"redis-sentinel://127.0.0.1:1,127.0.0.1/m",  // one bad host
		"redis-sentinel://127.0.0.1:1/m/extra?db=1", // not a name
	} {
		if _, ok, err := ParseSentinelURL(bad); !ok || err == nil {
			t.Errorf("%s: ok=%v err=%v, want an error", bad, ok, err)
		}
	}
}

func TestBadSentinelURLStopsStart(t *testing.T) {
	_, err := Parse(getenv(map[string]string{"REDIS_URL": "redis-sentinel://:secret@127.0.0.1/m"}))
	if err == nil || !strings.Contains(err.Error(), "REDIS_URL") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v, want REDIS_URL named and the password hidden", err)
	}
}
