package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/idempotency"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/moderation"
	"github.com/guidepost/guidepost/objstore"
	"github.com/guidepost/guidepost/queue"
	gsql "github.com/guidepost/guidepost/sql"
)

// contract is a real server (PostgreSQL, Redis, S3, the tile cache) whose
// every answer is checked against api/openapi.yaml: its status must be
// documented for the operation, and its headers and body must match the
// schema.
type contract struct {
	t     *testing.T
	srv   *httptest.Server
	doc   *openapi3.T
	db    *gsql.DB
	cache *cache.Guides
	media *media.Service
}

func newContract(t *testing.T) *contract {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	db, mediaSvc := realMedia(t)
	clock, secret := guidepost.SystemClock{}, testSecret
	store := gsql.NewGuides(db)
	// Likes reach shared lists only through the poll, here an hour away:
	// whatever a viewer sees of their own likes comes from the overlay.
	c := cache.New(cache.Deps{Store: store, Source: store, Registerer: prometheus.NewRegistry()}, cache.Config{LikePoll: time.Hour})
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	for deadline := time.Now().Add(10 * time.Second); !c.Ready(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("cache never synced")
		}
	}
	guideSvc := guides.New(guides.Deps{Store: c, Clock: clock, URLs: mediaSvc,
		Keys: &idempotency.Keeper{Store: gsql.NewIdempotencyKeys(db), Clock: clock}}, guides.Config{CursorKey: guides.CursorKey(secret)})
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(),
		Auth:  auth.New(auth.Deps{Store: gsql.NewUsers(db), Tokens: auth.NewTokens(secret, time.Hour, clock), Clock: clock}, auth.Config{Sessions: auth.DefaultConfig().Sessions}),
		Media: mediaSvc, Guides: guideSvc, Direct: mediaSvc,
		Moderation: moderation.New(moderation.Deps{Store: gsql.NewModeration(db), Guides: guideSvc, Photos: mediaSvc},
			moderation.Config{AutoHideReports: 2})}, api.Config{Contact: "safety@example.com"})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &contract{t: t, srv: srv, doc: doc, db: db, cache: c, media: mediaSvc}
}

// realMedia is a database of the test's own and the photo service on it,
// with the test's bucket and the API's Redis DB for its queue.
func realMedia(t *testing.T) (*gsql.DB, *media.Service) {
	t.Helper()
	db := testkit.DB(t)
	opt, _ := redis.ParseURL(testkit.RedisURL(t, testkit.RedisDBAPI))
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	blobs := objstore.New(testkit.S3Config(t))
	return db, media.New(media.Deps{Store: gsql.NewMedia(db), Keys: gsql.NewIdempotencyKeys(db),
		Blobs: blobs, Queue: queue.NewClient(rdb), Clock: guidepost.SystemClock{},
		Uploads: gsql.NewUploads(db), Multipart: blobs}, media.Config{})
}

// answer is one checked answer.
type answer struct {
	status int
	header http.Header
	raw    []byte
}

func (a answer) json(t *testing.T, out any) {
	t.Helper()
	if err := json.Unmarshal(a.raw, out); err != nil {
		t.Fatalf("%s: %v", a.raw, err)
	}
}

// call sends a request and checks the answer against the document.
func (c *contract) call(method, path, token string, body any, header ...string) answer {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.srv.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.send(req)
}

// send sends a request built by the caller and checks the answer.
func (c *contract) send(req *http.Request) answer {
	c.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	c.check(req, resp.StatusCode, resp.Header, raw)
	return answer{resp.StatusCode, resp.Header, raw}
}

var pathParam = regexp.MustCompile(`\{[^}/]+\}`)

// check validates one answer with kin-openapi, against the operation whose
// template matches the request's path.
func (c *contract) check(req *http.Request, status int, header http.Header, raw []byte) {
	c.t.Helper()
	// Literal segments win over parameters, as in the router:
	// /v1/guides/nearby is not /v1/guides/{id}.
	var route *routers.Route
	for _, tmpl := range c.doc.Paths.InMatchingOrder() {
		item := c.doc.Paths.Value(tmpl)
		parts := pathParam.Split(tmpl, -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		re := regexp.MustCompile("^" + strings.Join(parts, `[^/]+`) + "$")
		if op := item.GetOperation(req.Method); op != nil && re.MatchString(req.URL.Path) {
			route = &routers.Route{Spec: c.doc, Path: tmpl, PathItem: item, Method: req.Method, Operation: op}
			break
		}
	}
	if route == nil {
		c.t.Fatalf("%s %s is not in api/openapi.yaml", req.Method, req.URL.Path)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route},
		Status:                 status, Header: header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(raw)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		c.t.Errorf("%s %s → %d does not match api/openapi.yaml: %v\n%s", req.Method, req.URL, status, err, raw)
	}
}

func (c *contract) guest() (id, token string) {
	c.t.Helper()
	var s struct {
		User        struct{ ID string } `json:"user"`
		AccessToken string              `json:"access_token"`
	}
	c.call("POST", "/v1/auth/guest", "", nil).json(c.t, &s)
	return s.User.ID, s.AccessToken
}

type listItem struct {
	ID     string `json:"id"`
	Author struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"author"`
	LikeCount  int64 `json:"like_count"`
	LikedByMe  bool  `json:"liked_by_me"`
	PhotoCount int   `json:"photo_count"`
	Cover      *struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"cover"`
}

type listPage struct {
	Items      []listItem `json:"items"`
	NextCursor *string    `json:"next_cursor"`
	Truncated  *bool      `json:"truncated"`
}

func (c *contract) list(path, token string) listPage {
	c.t.Helper()
	a := c.call("GET", path, token, nil)
	if a.status != 200 {
		c.t.Fatalf("GET %s: %d %s", path, a.status, a.raw)
	}
	var p listPage
	a.json(c.t, &p)
	return p
}

// walk follows next_cursor to the end and returns every id.
func (c *contract) walk(path, token string) []string {
	c.t.Helper()
	var ids []string
	cursor := ""
	for range 50 {
		p := c.list(path+cursor, token)
		for _, it := range p.Items {
			ids = append(ids, it.ID)
		}
		if p.NextCursor == nil {
			return ids
		}
		if p.Truncated != nil && !*p.Truncated {
			c.t.Fatalf("%s: a cursor on a page that is not truncated", path)
		}
		cursor = "&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	c.t.Fatalf("%s: no last page", path)
	return nil
}
