package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/blocks"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/moderation"
	gsql "github.com/guidepost/guidepost/sql"
)

// fullStack is the API over every real service: PostgreSQL, Redis, S3.
type fullStack struct {
	*harness
	server *api.Server
	db     *gsql.DB
	secret string
}

const testSecret = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"

func newFullStack(t *testing.T) *fullStack { return newFullStackWith(t, nil) }

// newFullStackWith is newFullStack with its deps tuned (limits, keys).
func newFullStackWith(t *testing.T, tune func(*testServer, *gsql.DB)) *fullStack {
	db, mediaSvc := realMedia(t)
	clock := guidepost.SystemClock{}
	ts := &testServer{Deps: api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(),
		Media: mediaSvc, Accounts: acceptDeletes{}, Direct: mediaSvc,
		Blocks: blocks.New(blocks.Deps{Store: gsql.NewBlocks(db), Clock: clock}, blocks.Config{})},
		AuthDeps:  auth.Deps{Store: gsql.NewUsers(db), Tokens: auth.NewTokens(testSecret, time.Hour, clock), Clock: clock},
		GuideDeps: guides.Deps{Store: gsql.NewGuides(db), Clock: clock, URLs: mediaSvc, Places: mediaSvc}}
	if tune != nil {
		tune(ts, db)
	}
	guideSvc := guides.New(ts.GuideDeps, guides.Config{CursorKey: guides.CursorKey(testSecret)})
	ts.Auth, ts.Guides = ts.authService(), guideSvc
	ts.Moderation = moderation.New(moderation.Deps{Store: gsql.NewModeration(db), Guides: guideSvc, Photos: mediaSvc}, moderation.Config{})
	s := ts.server()
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &fullStack{harness: &harness{t: t, srv: srv}, server: s, db: db, secret: testSecret}
}

// signup makes an account and returns its id and access token.
func (f *fullStack) signup(email string) (id, token string) {
	f.t.Helper()
	r := f.do("POST", "/v1/auth/signup", "", `{"email":"`+email+`","password":"correct horse","display_name":"x"}`)
	if r.status != 201 {
		f.t.Fatalf("signup: %d %v", r.status, r.body)
	}
	return r.body["user"].(map[string]any)["id"].(string), r.body["access_token"].(string)
}

// photoForm is testdata's photo as a multipart upload body.
func photoForm(t *testing.T) (contentType string, body io.Reader) {
	photo, err := os.ReadFile("../testdata/photos/photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "photo.jpg")
	fw.Write(photo)
	mw.Close()
	return mw.FormDataContentType(), &buf
}

var (
	fieldCodesOnce sync.Once
	fieldCodes     map[string]bool
)

// documentedFieldCodes are the field error codes api/openapi.yaml lists.
func documentedFieldCodes(t *testing.T) map[string]bool {
	fieldCodesOnce.Do(func() {
		var doc struct {
			Components struct {
				Schemas struct {
					FieldErrorCode struct {
						Enum []string `yaml:"enum"`
					} `yaml:"FieldErrorCode"`
				} `yaml:"schemas"`
			} `yaml:"components"`
		}
		if err := yaml.Unmarshal(api.OpenAPI, &doc); err != nil {
			t.Fatalf("openapi.yaml: %v", err)
		}
		fieldCodes = map[string]bool{}
		for _, c := range doc.Components.Schemas.FieldErrorCode.Enum {
			fieldCodes[c] = true
		}
	})
	return fieldCodes
}

// fieldCode returns the code of the error naming field, or "".
func fieldCode(r reply, field string) string {
	errs, _ := r.body["errors"].([]any)
	for _, e := range errs {
		fe := e.(map[string]any)
		if fe["field"] == field {
			return fe["code"].(string)
		}
	}
	return ""
}

// A guide naming another user's photo, with a blank title and a latitude
// out of range, hears of all three at once; so does one pinned to a photo
// that is not the author's.
func TestEveryProblemOfAGuideInOneAnswer(t *testing.T) {
	f := newFullStack(t)
	_, owner := f.signup("owner@example.com")
	_, other := f.signup("other@example.com")
	ct, body := photoForm(t)
	photo := f.doRaw("POST", "/v1/media", owner, ct, body, 202)["id"].(string)

	r := f.do("POST", "/v1/guides", other, `{"title":" ","lat":91,"lng":127,"media_ids":["`+photo+`","x"]}`)
	problem(t, r, 400, "title", "lat", "media_ids[0]", "media_ids[1]")
	for field, want := range map[string]string{"title": guidepost.FREQUIRED, "lat": guidepost.FOUTOFRANGE,
		"media_ids[0]": guidepost.FNOTYOURS, "media_ids[1]": guidepost.FINVALIDFORMAT} {
		if got := fieldCode(r, field); got != want {
			t.Errorf("%s: code %q, want %q: %v", field, got, want, r.body)
		}
	}
	r = f.do("POST", "/v1/guides", other, `{"title":"","location_from_media_id":"`+photo+`","media_ids":["`+photo+`"]}`)
	problem(t, r, 400, "title", "location_from_media_id", "media_ids[0]")
	if fieldCode(r, "location_from_media_id") != guidepost.FNOTYOURS || fieldCode(r, "lat") != "" {
		t.Errorf("pinned to another's photo: %v", r.body)
	}
	// Alone, the photo problems keep their own status.
	problem(t, f.do("POST", "/v1/guides", other, `{"title":"t","location_from_media_id":"`+photo+`"}`), 422, "location_from_media_id")
	problem(t, f.do("POST", "/v1/guides", other, `{"title":"t","lat":1,"lng":2,"media_ids":["`+photo+`"]}`), 400, "media_ids[0]")

	// A patch too: the guide's own photo stays allowed.
	g := f.doRaw("POST", "/v1/guides", owner, "application/json",
		strings.NewReader(`{"title":"t","lat":1,"lng":2,"media_ids":["`+photo+`"]}`), 201)["id"].(string)
	_, stranger := f.signup("stranger@example.com")
	ct, body = photoForm(t)
	foreign := f.doRaw("POST", "/v1/media", stranger, ct, body, 202)["id"].(string)
	r = f.do("PATCH", "/v1/guides/"+g, owner, `{"title":"","media_ids":["`+photo+`","`+foreign+`"]}`)
	problem(t, r, 400, "title", "media_ids[1]")
	if fieldCode(r, "media_ids[0]") != "" {
		t.Errorf("the guide's own photo was refused: %v", r.body)
	}
}

// One mistake, one code and one wording, in a query string or a body.
func TestOneWordingPerMistake(t *testing.T) {
	f := newFullStack(t)
	_, token := f.signup("words@example.com")
	q := f.do("GET", "/v1/guides/nearby?lat=abc&lng=1&radius=3", "", "")
	b := f.do("POST", "/v1/guides", token, `{"title":"t","lat":"abc","lng":1,"radius":3}`)
	problem(t, q, 400, "lat", "radius")
	problem(t, b, 400, "lat")
	msg := func(r reply, field string) (code, message string) {
		for _, e := range r.body["errors"].([]any) {
			fe := e.(map[string]any)
			if fe["field"] == field {
				return fe["code"].(string), fe["message"].(string)
			}
		}
		return "", ""
	}
	qc, qm := msg(q, "lat")
	bc, bm := msg(b, "lat")
	if qc != bc || qm != bm || qm != "must be a number" {
		t.Errorf("a latitude that is not a number: query %s %q, body %s %q", qc, qm, bc, bm)
	}
	// The body decoder stops at the first wrong type; the unknown member is
	// worded as the unknown parameter is.
	b = f.do("POST", "/v1/guides", token, `{"title":"t","lat":1,"lng":1,"radius":3}`)
	qc, qm = msg(q, "radius")
	bc, bm = msg(b, "radius")
	if qc != guidepost.FUNKNOWNPARAMETER || bc != guidepost.FUNKNOWNFIELD ||
		!strings.HasPrefix(qm, "is not known here (known: ") || !strings.HasPrefix(bm, "is not known here (known: ") {
		t.Errorf("unknown names: query %s %q, body %s %q", qc, qm, bc, bm)
	}
}

// A JSON body sent under another type is 415 naming Content-Type, on every
// JSON route; a JSON type with parameters, or a +json type, is JSON.
func TestJSONBodiesNeedAJSONContentType(t *testing.T) {
	f := newFullStack(t)
	body := `{"email":"ct@example.com","password":"correct horse","display_name":"x"}`
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "", "application/json; charset=latin1"} {
		status, header, raw := f.send("POST", "/v1/auth/signup", "", ct, strings.NewReader(body))
		if status != http.StatusUnsupportedMediaType || !bytes.Contains(raw, []byte(`"field":"Content-Type","code":"unsupported"`)) ||
			header.Get("Accept-Post") != "application/json" {
			t.Errorf("Content-Type %q: %d %v %s", ct, status, header, raw)
		}
	}
	_, token := f.signup("ct@example.com")
	if status, _, raw := f.send("PATCH", "/v1/guides/x", token, "text/plain", strings.NewReader(`{}`)); status != 415 {
		t.Errorf("PATCH as text/plain: %d %s", status, raw)
	}
	if status, _, raw := f.send("POST", "/v1/auth/guest", "", "APPLICATION/JSON; charset=UTF-8", strings.NewReader(`{}`)); status != 201 {
		t.Errorf("guest with a JSON type in capitals: %d %s", status, raw)
	}
	if status, _, raw := f.send("POST", "/v1/auth/guest", "", "application/merge-patch+json", strings.NewReader(`{}`)); status != 201 {
		t.Errorf("guest with a +json type: %d %s", status, raw)
	}
	if status, _, raw := f.send("POST", "/v1/auth/guest", "", "", nil); status != 201 {
		t.Errorf("guest with no body: %d %s", status, raw)
	}
	// A photo is multipart, and a JSON body there is the 415.
	ct, form := photoForm(t)
	f.doRaw("POST", "/v1/media", token, ct, form, 202)
	if status, _, raw := f.send("POST", "/v1/media", token, "application/json", strings.NewReader(`{"file":"x"}`)); status != 415 {
		t.Errorf("a JSON upload: %d %s", status, raw)
	}
}

// timeFormat is the API's one way to write an instant.
var timeFormat = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// Every time in every answer has one format, and a photo's 202 says the
// very bytes a later GET says.
func TestTimesAreMillisecondUTCEverywhere(t *testing.T) {
	f := newFullStack(t)
	_, token := f.signup("times@example.com")
	ct, body := photoForm(t)
	status, _, accepted := f.send("POST", "/v1/media", token, ct, body)
	if status != 202 {
		t.Fatalf("upload: %d %s", status, accepted)
	}
	created := regexp.MustCompile(`"created_at":"[^"]*"`)
	id := regexp.MustCompile(`"id":"([^"]*)"`).FindSubmatch(accepted)[1]
	_, _, got := f.send("GET", "/v1/media/"+string(id), token, "", nil)
	if a, b := created.Find(accepted), created.Find(got); a == nil || !bytes.Equal(a, b) {
		t.Fatalf("the 202 says %s, the GET %s", a, b)
	}
	g := f.doRaw("POST", "/v1/guides", token, "application/json", strings.NewReader(`{"title":"t","lat":37.5,"lng":127}`), 201)
	nearby := f.doRaw("GET", "/v1/guides/nearby?lat=37.5&lng=127", "", "", nil, 200)
	me := f.doRaw("GET", "/v1/me", token, "", nil, 200)
	upload := f.doRaw("POST", "/v1/uploads", token, "application/json",
		strings.NewReader(fmt.Sprintf(`{"bytes":1000,"sha256":"%064x","content_type":"image/jpeg"}`, 7)), 201)
	var times []string
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(x, k)
			}
		case []any:
			for _, x := range v {
				walk(x, key)
			}
		case string:
			if strings.HasSuffix(key, "_at") {
				times = append(times, key+"="+v)
			}
		}
	}
	for _, answer := range []map[string]any{g, nearby, me, upload} {
		walk(answer, "")
	}
	if len(times) < 6 {
		t.Fatalf("only %d times found: %v", len(times), times)
	}
	for _, kv := range times {
		if _, v, _ := strings.Cut(kv, "="); !timeFormat.MatchString(v) {
			t.Errorf("%s is not RFC 3339 UTC with milliseconds", kv)
		}
	}
}

// An expired token and a forged one are both 401, with types an app can
// tell apart: refresh, or sign in again.
func TestExpiredAndForgedTokensAnswerApart(t *testing.T) {
	f := newFullStack(t)
	id, _ := f.signup("tokens@example.com")
	past := &fixedClock{time.Now().Add(-2 * time.Hour)}
	expired, _ := auth.NewTokens(f.secret, time.Hour, past).Issue(id, noSession)
	forgedExpired, _ := auth.NewTokens(strings.Repeat("w", 32), time.Hour, past).Issue(id, noSession)
	forged, _ := auth.NewTokens(strings.Repeat("w", 32), time.Hour, guidepost.SystemClock{}).Issue(id, noSession)
	for token, want := range map[string]string{expired: "/problems/token_expired", forgedExpired: "/problems/unauthorized",
		forged: "/problems/unauthorized", algNone(id): "/problems/unauthorized", "garbage": "/problems/unauthorized"} {
		r := f.do("GET", "/v1/guides/nearby?lat=1&lng=1", token, "")
		problem(t, r, 401)
		if r.body["type"] != want || r.header.Get("WWW-Authenticate") != `Bearer realm="guidepost", error="invalid_token"` {
			t.Errorf("%.20s…: %v %q, want %s", token, r.body["type"], r.header.Get("WWW-Authenticate"), want)
		}
	}
}

// A problem's type resolves to a page served here that describes it.
func TestProblemTypesResolve(t *testing.T) {
	f := newFullStack(t)
	for _, r := range []reply{
		f.do("GET", "/v1/guides/nearby?lat=x", "", ""),
		f.do("GET", "/v1/nowhere", "", ""),
		f.do("DELETE", "/v1/guides/nearby", "", ""),
		f.do("GET", "/v1/me", "", ""),
	} {
		typ, _ := r.body["type"].(string)
		status, header, page := f.send("GET", typ, "", "", nil)
		if status != 200 || !strings.HasPrefix(header.Get("Content-Type"), "text/html") ||
			!bytes.Contains(page, []byte(r.body["title"].(string))) {
			t.Errorf("GET %s: %d %q %.200s", typ, status, header.Get("Content-Type"), page)
		}
	}
	_, _, page := f.send("GET", "/problems/invalid", "", "", nil)
	for code := range documentedFieldCodes(t) {
		if !bytes.Contains(page, []byte("<code>"+code+"</code>")) {
			t.Errorf("/problems/invalid does not explain field code %s", code)
		}
	}
	_, _, index := f.send("GET", "/problems", "", "", nil)
	if !bytes.Contains(index, []byte(`href="/problems/token_expired"`)) {
		t.Errorf("the index lacks token_expired: %.300s", index)
	}
	problem(t, f.do("GET", "/problems/nope", "", ""), 404)
}

// The failure of a photo whose bytes are at fault says what will work,
// not to upload the same file again.
func TestCorruptPhotoFailureSaysWhatWorks(t *testing.T) {
	f := newFullStack(t)
	_, token := f.signup("corrupt@example.com")
	ct, body := photoForm(t)
	id := f.doRaw("POST", "/v1/media", token, ct, body, 202)["id"].(string)
	// As the worker records a permanent failure, in words older than
	// today's: the answer speaks today's.
	if err := gsql.NewMedia(f.db).Fail(context.Background(), id, "corrupt",
		"The photo could not be read: the file is damaged or incomplete. Please upload it again.", time.Now()); err != nil {
		t.Fatal(err)
	}
	m := f.doRaw("GET", "/v1/media/"+id, token, "", nil, 200)
	failure, _ := m["failure"].(string)
	if !strings.Contains(failure, "JPEG or PNG") || strings.Contains(failure, "Please upload it again") {
		t.Errorf("failure %q", failure)
	}
}
