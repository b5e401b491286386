package api_test

import (
	"context"
	"strings"
	"testing"
)

// Every moderation route answers as api/openapi.yaml documents, on the
// real stores: reports, their repeats and refusals, the guard, the queue,
// each action, the audit log, the author's labelled view, and /v1/about.
func TestModerationAnswersAsDocumented(t *testing.T) {
	c := newContract(t)
	ctx := context.Background()
	authorID, author := c.guest()
	modID, mod := c.guest()
	_, reporter := c.guest()
	if _, err := c.db.Pool.Exec(ctx, `UPDATE users SET moderator = true WHERE id = $1`, modID); err != nil {
		t.Fatal(err)
	}
	var g struct{ ID string }
	c.call("POST", "/v1/guides", author, map[string]any{"title": "Reported", "lat": 37.5, "lng": 127.0}).json(t, &g)

	body := map[string]any{"target_type": "guide", "target_id": g.ID, "reason": "spam", "note": "ads\nagain"}
	first := c.call("POST", "/v1/reports", reporter, body)
	again := c.call("POST", "/v1/reports", reporter, body)
	if first.status != 202 || string(first.raw) != string(again.raw) {
		t.Fatalf("report then repeat: %d %s / %s", first.status, first.raw, again.raw)
	}
	for want, b := range map[int]map[string]any{
		400: {"target_type": "post", "target_id": "x", "reason": "meh"},
		404: {"target_type": "photo", "target_id": "01a233ee-9e6e-71a4-b005-098cc36a4e10", "reason": "spam"},
		422: {"target_type": "user", "target_id": authorID, "reason": "spam"},
	} {
		tok := reporter
		if want == 422 {
			tok = author
		}
		if r := c.call("POST", "/v1/reports", tok, b); r.status != want || !strings.Contains(string(r.raw), "target_") {
			t.Errorf("%v: %d %s", b, r.status, r.raw)
		}
	}
	if r := c.call("GET", "/v1/me/reports", reporter, nil); r.status != 200 || !strings.Contains(string(r.raw), `"status":"open"`) {
		t.Errorf("my reports: %d %s", r.status, r.raw)
	}
	for _, path := range []string{"/v1/moderation/reports", "/v1/moderation/audit"} {
		if r := c.call("GET", path, reporter, nil); r.status != 403 {
			t.Errorf("a non-moderator on %s: %d", path, r.status)
		}
		if r := c.call("GET", path, "", nil); r.status != 401 {
			t.Errorf("anonymous on %s: %d", path, r.status)
		}
	}
	if r := c.call("GET", "/v1/moderation/reports?limit=1", mod, nil); r.status != 200 || !strings.Contains(string(r.raw), `"reporters":1`) {
		t.Errorf("queue: %d %s", r.status, r.raw)
	}
	act := func(action, typ, id string, want int) answer {
		t.Helper()
		r := c.call("POST", "/v1/moderation/actions", mod, map[string]any{"action": action, "target_type": typ, "target_id": id, "reason": "because"})
		if r.status != want {
			t.Errorf("%s %s: %d %s", action, typ, r.status, r.raw)
		}
		return r
	}
	act("restore", "guide", g.ID, 409)
	act("suspend", "guide", g.ID, 400)
	act("hide", "guide", g.ID, 200)
	if r := c.call("GET", "/v1/guides/"+g.ID, author, nil); !strings.Contains(string(r.raw), `"hidden":{"reason":"because"`) {
		t.Errorf("the author's view: %s", r.raw)
	}
	c.call("GET", "/v1/me/guides", author, nil)
	if r := c.call("GET", "/v1/guides/"+g.ID, reporter, nil); r.status != 404 {
		t.Errorf("another viewer: %d", r.status)
	}
	// Likes go as reads do: not found for anyone else, its author's own.
	for _, m := range []string{"PUT", "DELETE"} {
		if r := c.call(m, "/v1/guides/"+g.ID+"/like", reporter, nil); r.status != 404 {
			t.Errorf("%s like of the hidden guide by another: %d %s", m, r.status, r.raw)
		}
	}
	if r := c.call("PUT", "/v1/guides/"+g.ID+"/like", author, nil); r.status != 200 || !strings.Contains(string(r.raw), `"like_count":1`) {
		t.Errorf("the author likes their hidden guide: %d %s", r.status, r.raw)
	}
	act("restore", "guide", g.ID, 200)
	if r := c.call("PUT", "/v1/guides/"+g.ID+"/like", reporter, nil); r.status != 200 || !strings.Contains(string(r.raw), `"like_count":2`) {
		t.Errorf("a like once restored: %d %s", r.status, r.raw)
	}
	act("dismiss", "user", authorID, 200)
	act("suspend", "user", authorID, 200)
	act("unsuspend", "user", authorID, 200)
	act("suspend", "user", modID, 422)
	act("remove", "guide", g.ID, 200)
	act("remove", "guide", g.ID, 404)
	if r := c.call("GET", "/v1/moderation/audit?limit=2", mod, nil); r.status != 200 || !strings.Contains(string(r.raw), `"next_cursor":"`) {
		t.Errorf("audit: %d %s", r.status, r.raw)
	}
	if r := c.call("GET", "/v1/me/reports", reporter, nil); !strings.Contains(string(r.raw), `"outcome":"hide"`) {
		t.Errorf("the reporter's outcome: %s", r.raw)
	}
	if r := c.call("GET", "/v1/about", "", nil); !strings.Contains(string(r.raw), `"contact":"safety@example.com"`) {
		t.Errorf("about: %s", r.raw)
	}
}
