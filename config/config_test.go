package config

import (
	"log/slog"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

func getenv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultsWorkLocally(t *testing.T) {
	c, err := Parse(getenv(map[string]string{"GUIDEPOST_ENV": "development"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:8080" || c.ShutdownTimeout != 20*time.Second || c.Media.MaxUploadBytes != 25<<20 {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	if err := c.CheckServe(); err != nil || c.JWTSecret != DevJWTSecret {
		t.Fatalf("development must run on the dev secret: %v", err)
	}
	if c.StatementTimeout != 5*time.Second || c.RequestTimeout != 10*time.Second || c.MetricsAddr != "127.0.0.1:9090" {
		t.Fatalf("timeouts: %v %v %q", c.StatementTimeout, c.RequestTimeout, c.MetricsAddr)
	}
}

// Without GUIDEPOST_ENV=development, the API and workers need a secret of
// their own: unset, or the built-in one, is refused naming JWT_SECRET.
func TestOnlyDevelopmentRunsWithoutASecret(t *testing.T) {
	for _, env := range []map[string]string{nil, {"GUIDEPOST_ENV": "production"}, {"JWT_SECRET": DevJWTSecret},
		{"GUIDEPOST_ENV": "production", "JWT_SECRET": DevJWTSecret}} {
		c, err := Parse(getenv(env))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CheckServe(); err == nil || !strings.Contains(err.Error(), "JWT_SECRET") {
			t.Fatalf("%v: want refusal naming JWT_SECRET, got %v", env, err)
		}
	}
	c, err := Parse(getenv(map[string]string{"JWT_SECRET": strings.Repeat("s", 40)}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckServe(); err != nil || c.Development() {
		t.Fatalf("a real secret: %v (env %s)", err, c.Env)
	}
}

func TestBadValuesAreAllReported(t *testing.T) {
	_, err := Parse(getenv(map[string]string{
		"LOG_FORMAT": "xml", "WORKER_CONCURRENCY": "many", "SHUTDOWN_TIMEOUT": "soon", "JWT_SECRET": "short",
		"LOG_LEVEL": "loud", "GUIDEPOST_ENV": "prod", "MAX_UPLOAD_BYTES": "lots", "MEDIA_ORPHAN_AGE": "-1h",
		"GUIDES_CACHE": "maybe", "GUIDES_CACHE_LIKE_POLL": "0s", "GUIDES_CACHE_L1_MB": "0", "HTTP_MAX_INFLIGHT": "-3",
		"MEDIA_FORMATS": "webp,avif", "GUIDES_CACHE_FILL_DUTY": "1.5", "GUIDES_CACHE_FILL_ON_MISS": "3",
	}))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, key := range []string{"LOG_FORMAT", "WORKER_CONCURRENCY", "SHUTDOWN_TIMEOUT", "JWT_SECRET",
		"LOG_LEVEL", "GUIDEPOST_ENV", "MAX_UPLOAD_BYTES", "MEDIA_ORPHAN_AGE",
		"GUIDES_CACHE=", "GUIDES_CACHE_LIKE_POLL", "GUIDES_CACHE_L1_MB", "HTTP_MAX_INFLIGHT", "MEDIA_FORMATS", "GUIDES_CACHE_FILL_DUTY", "GUIDES_CACHE_FILL_ON_MISS"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
	if strings.Contains(err.Error(), "short") {
		t.Error("the secret's value leaked into the error")
	}
}

func TestSectionsAndUnitsParse(t *testing.T) {
	c, err := Parse(getenv(map[string]string{
		"MAX_UPLOAD_BYTES": "10MiB", "MEDIA_PUBLIC_BASE_URL": "https://cdn.example.com/", "MEDIA_FORMATS": "JPEG, webp,avif", "MEDIA_SWEEP_INTERVAL": "100ms",
		"UPLOAD_TTL": "2h", "UPLOAD_MAX_OPEN": "3", "UPLOAD_DAILY_BYTES": "1GiB",
		"GUIDES_CACHE": "off", "GUIDES_CACHE_L1_MB": "8", "GUIDES_CACHE_MAX_TILE_GUIDES": "10", "GUIDES_CACHE_FILL_DUTY": "0.3", "GUIDES_CACHE_FILL_ALLOWANCE": "0.05", "GUIDES_CACHE_FILL_ON_MISS": "2",
		"LOG_LEVEL": "warn", "LOG_FORMAT": "JSON", "SHUTDOWN_DRAIN_DELAY": "0s", "WORKER_METRICS_ADDR": "127.0.0.1:9090",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := Media{MaxUploadBytes: 10 << 20, PublicBase: "https://cdn.example.com", SweepInterval: 100 * time.Millisecond,
		PendingAge: 5 * time.Minute, OrphanAge: 24 * time.Hour,
		UploadTTL: 2 * time.Hour, UploadURLTTL: time.Hour, UploadMaxOpen: 3, UploadDayBytes: 1 << 30,
		Formats: []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF}}
	if !reflect.DeepEqual(c.Media, want) {
		t.Errorf("media: %+v, want %+v", c.Media, want)
	}
	if c.Guides.Cache || c.Guides.L1Bytes != 8<<20 || c.Guides.MaxTileGuides != 10 || c.Guides.LikePoll != time.Second ||
		c.Guides.FillDuty != 0.3 || c.Guides.FillAllowance != 0.05 || c.Guides.FillOnMiss != 2 {
		t.Errorf("guides: %+v", c.Guides)
	}
	if c.LogLevel != slog.LevelWarn || c.LogFormat != "json" || c.WorkerMetricsAddr != "127.0.0.1:9090" {
		t.Errorf("logging: %v %q %q", c.LogLevel, c.LogFormat, c.WorkerMetricsAddr)
	}
	if n, err := Parse(getenv(map[string]string{"MAX_UPLOAD_BYTES": "26214400"})); err != nil || n.Media.MaxUploadBytes != 25<<20 {
		t.Errorf("a bare byte count: %d %v", n.Media.MaxUploadBytes, err)
	}
}

// The README's Configuration table is the operator's reference: one row
// per variable Parse reads, no row for one it does not, and every default
// written there as a value is the default Parse uses.
func TestReadmeTableMatchesParse(t *testing.T) {
	read := map[string]bool{}
	defaults, err := Parse(func(k string) string { read[k] = true; return "" })
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeTable(t)
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.name] {
			t.Errorf("README lists %s twice", r.name)
		}
		seen[r.name] = true
		if !read[r.name] {
			t.Errorf("README lists %s, which config does not read", r.name)
		}
		if r.def == "" {
			continue
		}
		c, err := Parse(getenv(map[string]string{r.name: r.def}))
		if err != nil || !reflect.DeepEqual(c, defaults) {
			t.Errorf("README says %s defaults to %q; Parse disagrees (%v)", r.name, r.def, err)
		}
	}
	for k := range read {
		if !seen[k] {
			t.Errorf("config reads %s, which the README's table does not list", k)
		}
	}
}

// A default the README writes in words holds too: "none" and "empty" are
// an empty setting, "number of CPUs" and "as S3_ENDPOINT" are what they
// say. A phrase this test does not know fails it: write the default as a
// value, or teach the test the phrase.
func TestReadmeDefaultsInWordsMatchParse(t *testing.T) {
	defaults, err := Parse(getenv(nil))
	if err != nil {
		t.Fatal(err)
	}
	// A value for each variable whose default is empty, to find the
	// settings it fills.
	samples := map[string]string{
		"DATABASE_REPLICA_URLS": "postgres://r1:5433/g", "CORS_ALLOWED_ORIGINS": "*", "JWT_SECRET": strings.Repeat("s", 40),
		"MEDIA_PUBLIC_BASE_URL": "https://cdn.example.com", "WORKER_METRICS_ADDR": "127.0.0.1:9091",
		"HTTP_TRUSTED_PROXIES": "10.0.0.0/8", "MODERATION_CONTACT": "safety@example.com",
	}
	rows := readmeTable(t)
	valueOf := map[string]string{}
	for _, r := range rows {
		valueOf[r.name] = r.def
	}
	for _, r := range rows {
		if r.def != "" {
			continue
		}
		var same map[string]string
		switch words := strings.ToLower(r.cell); {
		case strings.HasPrefix(words, "none"), strings.HasPrefix(words, "empty"):
			sample, ok := samples[r.name]
			if !ok {
				t.Errorf("README says %s defaults to %q: give this test a sample value for it", r.name, r.cell)
				continue
			}
			c, err := Parse(getenv(map[string]string{r.name: sample}))
			if err != nil {
				t.Errorf("%s=%q: %v", r.name, sample, err)
				continue
			}
			changed := settingsChanged(reflect.ValueOf(defaults), reflect.ValueOf(c), "Config")
			if len(changed) == 0 {
				t.Errorf("%s=%q changes no setting", r.name, sample)
			}
			for path, def := range changed {
				if !def.IsZero() {
					t.Errorf("README says %s defaults to %q; Parse defaults %s to %v", r.name, r.cell, path, def)
				}
			}
			continue
		case words == "number of cpus":
			same = map[string]string{r.name: strconv.Itoa(runtime.NumCPU())}
		case strings.HasPrefix(words, "as "):
			other := strings.TrimSpace(r.cell[len("as "):])
			if valueOf[other] == "" {
				t.Errorf("README says %s defaults %q, but %s has no default value", r.name, r.cell, other)
				continue
			}
			same = map[string]string{r.name: valueOf[other]}
		default:
			t.Errorf("README says %s defaults to %q, which this test cannot check", r.name, r.cell)
			continue
		}
		if c, err := Parse(getenv(same)); err != nil || !reflect.DeepEqual(c, defaults) {
			t.Errorf("README says %s defaults to %q; Parse disagrees (%v)", r.name, r.cell, err)
		}
	}
}

// settingsChanged lists the settings (leaf fields, by path) where b
// differs from a, with a's value.
func settingsChanged(a, b reflect.Value, path string) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	if a.Kind() == reflect.Struct {
		for i := range a.NumField() {
			for p, v := range settingsChanged(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name) {
				out[p] = v
			}
		}
		return out
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		out[path] = a
	}
	return out
}

type readmeRow struct{ name, def, cell string }

// readmeTable returns the Configuration table's rows: the variable, and its
// default when the README writes it as a value (`20s`), not in words. The
// table must be one block: a blank line would split it in two on GitHub.
func readmeTable(t *testing.T) []readmeRow {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(raw), "\n## Configuration\n")
	section, _, _ = strings.Cut(section, "\n## ")
	lines := strings.Split(section, "\n")
	first, last := -1, -1
	var rows []readmeRow
	for i, line := range lines {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		r := readmeRow{name: strings.Trim(strings.TrimSpace(cells[1]), "`"), cell: strings.TrimSpace(cells[2])}
		if d := r.cell; strings.HasPrefix(d, "`") {
			r.def, _, _ = strings.Cut(d[1:], "`")
		}
		rows = append(rows, r)
	}
	if first < 0 {
		t.Fatal("README.md has no Configuration table")
	}
	for _, line := range lines[first : last+1] {
		if !strings.HasPrefix(line, "|") {
			t.Errorf("README's Configuration table is split by %q", line)
		}
	}
	return rows
}

func TestLimitsParse(t *testing.T) {
	c, err := Parse(getenv(map[string]string{
		"RATE_LOGIN_FAILURES_PER_EMAIL": "5/1m", "RATE_LIKES_PER_USER": "off", "UPLOAD_MIN_RATE": "8KiB",
		"HTTP_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1", "QUOTA_BYTES": "1GiB",
	}))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Limits
	if l.LoginEmail != (guidepost.Rate{Name: "login_email", Count: 5, Period: time.Minute}) || !l.Like.Off() || l.Like.Name != "like" {
		t.Errorf("rates: %+v %+v", l.LoginEmail, l.Like)
	}
	if l.Signup != (guidepost.Rate{Name: "signup", Count: 10, Period: time.Hour}) || l.UploadsPerUser != 4 ||
		l.Rename != (guidepost.Rate{Name: "rename", Count: 10, Period: 24 * time.Hour}) {
		t.Errorf("defaults: %+v", l)
	}
	if l.UploadMinRate != 8<<10 || l.QuotaBytes != 1<<30 || !reflect.DeepEqual(l.TrustedProxies, []string{"10.0.0.0/8", "127.0.0.1"}) {
		t.Errorf("limits: %+v", l)
	}
	_, err = Parse(getenv(map[string]string{"RATE_SIGNUP_PER_IP": "10", "RATE_GUEST_PER_IP": "0/1h",
		"RATE_UPLOADS_PER_USER": "5/soon", "HTTP_TRUSTED_PROXIES": "10.0.0.0/8,proxy", "UPLOAD_MAX_PER_USER": "0"}))
	for _, key := range []string{"RATE_SIGNUP_PER_IP", "RATE_GUEST_PER_IP", "RATE_UPLOADS_PER_USER", "HTTP_TRUSTED_PROXIES", "UPLOAD_MAX_PER_USER"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
}

// DATABASE_REPLICA_URLS is a list of URLs, each of which may list several
// hosts; anything else is refused naming the variable.
func TestReplicaURLsParse(t *testing.T) {
	c, err := Parse(getenv(map[string]string{"DATABASE_REPLICA_URLS": " postgres://r1:5433/g?sslmode=disable, postgresql://a:1,b:2/g ",
		"DATABASE_REPLICA_MAX_LAG": "2s"}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"postgres://r1:5433/g?sslmode=disable", "postgresql://a:1,b:2/g"}
	if !reflect.DeepEqual(c.Replicas.URLs, want) || c.Replicas.MaxLag != 2*time.Second || c.Replicas.Wait != 50*time.Millisecond {
		t.Fatalf("replicas: %+v", c.Replicas)
	}
	if c, _ := Parse(getenv(nil)); c.Replicas.URLs != nil || c.Replicas.MaxLag != 5*time.Second {
		t.Fatalf("default replicas: %+v", c.Replicas)
	}
	if _, err := Parse(getenv(map[string]string{"DATABASE_REPLICA_URLS": "host=r1 port=5433"})); err == nil || !strings.Contains(err.Error(), "DATABASE_REPLICA_URLS") {
		t.Fatalf("a keyword DSN: %v", err)
	}
}

func TestCORSOriginsAndPublicEndpoint(t *testing.T) {
	c, err := Parse(getenv(map[string]string{"CORS_ALLOWED_ORIGINS": "https://app.example.com/, http://192.168.1.20:5173,*",
		"S3_ENDPOINT": "http://10.0.0.5:7070/"}))
	if err != nil || !reflect.DeepEqual(c.CORSOrigins, []string{"https://app.example.com", "http://192.168.1.20:5173", "*"}) ||
		c.S3PublicEndpoint != "http://10.0.0.5:7070" {
		t.Fatalf("%q %q %v", c.CORSOrigins, c.S3PublicEndpoint, err)
	}
	for _, bad := range []string{"app.example.com", "https://app.example.com/path", "https://"} {
		if _, err := Parse(getenv(map[string]string{"CORS_ALLOWED_ORIGINS": bad})); err == nil {
			t.Errorf("origin %q was taken", bad)
		}
	}
}
