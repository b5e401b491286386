package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/idempotency"
	gsql "github.com/guidepost/guidepost/sql"
)

// Refused and replayed guide writes give their budget event back and spend
// the refusal limit instead; once that is spent every write is refused
// (a retry loop is bounded), while work done spends the budget alone.
func TestOnlyWorkDoneSpendsTheBudget(t *testing.T) {
	f := newFullStackWith(t, func(d *testServer, db *gsql.DB) {
		d.Limiter = limiter(t)
		d.Rates.GuideWrite = guidepost.Rate{Name: "guide_write", Count: 2, Period: time.Hour}
		d.Rates.GuideRefusals = guidepost.Rate{Name: "guide_refusals", Count: 5, Period: time.Hour}
		d.GuideDeps.Keys = &idempotency.Keeper{Store: gsql.NewIdempotencyKeys(db), Clock: guidepost.SystemClock{}}
	})
	_, token := f.signup("budget@example.com")
	create := func(body, key string) reply {
		req, _ := http.NewRequest("POST", f.srv.URL+"/v1/guides", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		return f.sendRequest(req)
	}
	for range 3 {
		problem(t, create(`{"title":"","lat":1,"lng":2}`, ""), 400, "title")
	}
	valid := `{"title":"t","lat":1,"lng":2}`
	r := create(valid, "k1")
	if r.status != 201 || !strings.HasPrefix(r.header.Get("RateLimit"), `"guide_write";r=1;`) {
		t.Fatalf("first write after three refusals: %d %v", r.status, r.header)
	}
	if r := create(valid, "k1"); r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %v", r.status, r.header)
	}
	// Three refusals, a replay and this one spend the refusal limit: then
	// every write is refused, naming it, before it runs, though the budget
	// has one left.
	problem(t, create(`{"title":"","lat":1,"lng":2}`, ""), 400, "title")
	r = create(valid, "")
	problem(t, r, 429)
	if e := r.body["errors"].([]any)[0].(map[string]any); e["limit"] != "guide_refusals" {
		t.Fatalf("%v", r.body)
	}
}
