package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
)

// member signs up an account with an email and returns its id and token.
func (a *guideAPI) member(email string) (id, token string) {
	a.t.Helper()
	var s struct {
		User        struct{ ID string } `json:"user"`
		AccessToken string              `json:"access_token"`
	}
	body := map[string]any{"email": email, "password": "correct horse battery", "display_name": "Member"}
	if code, raw := a.call("POST", "/v1/auth/signup", "", body, &s); code != 201 {
		a.t.Fatalf("signup %s: %d %s", email, code, raw)
	}
	return s.User.ID, s.AccessToken
}

// admin runs `guidepost admin args…` to completion.
func admin(t *testing.T, env []string, args ...string) string {
	t.Helper()
	p := testkit.Start(t, env, "", append([]string{"admin"}, args...)...)
	if !p.Wait(time.Minute) || p.Cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("admin %v:\n%s", args, p.Output())
	}
	return p.Output()
}

// surfaces is whether a guide shows on each public surface of one process,
// and the ETag of the map tile that holds it.
type surfaces struct {
	nearby, viewport, clusters, search, tiles bool
	etag                                      string
}

func (s surfaces) none() bool {
	return !s.nearby && !s.viewport && !s.clusters && !s.search && !s.tiles
}
func (s surfaces) all() bool { return s.nearby && s.viewport && s.clusters && s.search && s.tiles }

const modLat, modLng = 37.5512, 126.9882

func (a *guideAPI) surfaces(id string) surfaces {
	a.t.Helper()
	var out surfaces
	has := func(path, key string) bool {
		code, raw := a.call("GET", path, "", nil, nil)
		if code != 200 {
			a.t.Errorf("%s: %d %s", path, code, raw)
		}
		return strings.Contains(string(raw), `"`+key+`":"`+id+`"`)
	}
	out.nearby = has(fmt.Sprintf("/v1/guides/nearby?lat=%s&lng=%s&radius_m=500&limit=100", fmtF(modLat), fmtF(modLng)), "id")
	out.viewport = has("/v1/guides?bbox=126.98,37.54,127.0,37.56&limit=500", "id")
	out.clusters = has("/v1/guides/clusters?bbox=126.98,37.54,127.0,37.56&zoom=18", "guide_id")
	out.search = has(fmt.Sprintf("/v1/guides/nearby?lat=%s&lng=%s&radius_m=500&q=lantern", fmtF(modLat), fmtF(modLng)), "id")
	x, y := tileOf(modLat, modLng, 17)
	resp, err := a.hc.Get(fmt.Sprintf("%s/v1/tiles/17/%d/%d.mvt", a.base, x, y))
	if err != nil {
		a.t.Fatal(err)
	}
	var tile strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		tile.Write(buf[:n])
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	out.tiles = strings.Contains(tile.String(), id) // the guide's id is a feature property
	out.etag = resp.Header.Get("ETag")
	return out
}

// within polls until ok, failing past the limit.
func within(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	start := time.Now()
	for !ok() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%s after %s", what, time.Since(start).Round(time.Millisecond))
}

// A moderator's hide, restore and remove reach every public surface of
// another API process within a second (nearby, viewport, clusters, text
// search, tiles with a new ETag), with Redis up and with Redis stopped;
// the author keeps seeing the hidden guide, labelled, and hears of each
// action on GET /v1/events.
func TestTakedownReachesEverySurfaceOfEveryProcess(t *testing.T) {
	for _, redisDown := range []bool{false, true} {
		t.Run(map[bool]string{false: "redis", true: "redis stopped"}[redisDown], func(t *testing.T) {
			env := stackEnv(t, testkit.RedisDBE2E)
			runSeed(t, env, "--guides", "300")
			var redis *testkit.RedisServer
			if redisDown {
				redis = testkit.StartRedis(t)
				env = append(env, "REDIS_URL="+redis.URL)
			}
			a, b := startServe(t, env), startServe(t, env)
			_, token := a.member("author@example.com")
			_, modToken := a.member("mod@example.com")
			if out := admin(t, env, "grant-moderator", "mod@example.com"); !strings.Contains(out, "is a moderator") {
				t.Fatalf("grant-moderator said %q", out)
			}
			var g struct{ ID string }
			body := map[string]any{"title": "Lantern walk", "lat": modLat, "lng": modLng}
			if code, raw := a.call("POST", "/v1/guides", token, body, &g); code != 201 {
				t.Fatalf("create: %d %s", code, raw)
			}
			within(t, time.Second, "new guide on every surface of the other process", func() bool { return b.surfaces(g.ID).all() })
			req, _ := http.NewRequest("GET", b.base+"/v1/events", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			var events *testkit.SSE
			if !redisDown {
				events = testkit.OpenSSE(t, req)
			}
			if redisDown {
				redis.Stop() // events need Redis: without it only the takedown is checked
			}
			act := func(action string) {
				t.Helper()
				in := map[string]any{"action": action, "target_type": "guide", "target_id": g.ID, "reason": "test: " + action}
				if code, raw := a.call("POST", "/v1/moderation/actions", modToken, in, nil); code != 200 {
					t.Fatalf("%s: %d %s", action, code, raw)
				}
				if events != nil {
					ev := events.Next(5 * time.Second)
					if ev.Name != "moderation.action" || !strings.Contains(ev.Data, `"action":"`+action+`"`) {
						t.Fatalf("the author heard %+v", ev)
					}
				}
			}
			before := b.surfaces(g.ID)
			act("hide")
			within(t, time.Second, "hidden guide off every surface of the other process", func() bool {
				s := b.surfaces(g.ID)
				return s.none() && s.etag != before.etag
			})
			if code, _ := b.call("GET", "/v1/guides/"+g.ID, "", nil, nil); code != 404 {
				t.Errorf("an anonymous reader gets %d for the hidden guide", code)
			}
			if code, raw := b.call("GET", "/v1/guides/"+g.ID, token, nil, nil); code != 200 || !strings.Contains(string(raw), `"hidden":{"reason":"test: hide"`) {
				t.Errorf("the author reads %d %s", code, raw)
			}
			if _, raw := b.call("GET", "/v1/me/guides", token, nil, nil); !strings.Contains(string(raw), `"hidden":{"reason":"test: hide"`) {
				t.Errorf("the author's list: %s", raw)
			}
			act("restore")
			within(t, time.Second, "restored guide back on every surface", func() bool { return b.surfaces(g.ID).all() })
			act("remove")
			within(t, time.Second, "removed guide off every surface", func() bool { return b.surfaces(g.ID).none() })
			if code, _ := b.call("GET", "/v1/guides/"+g.ID, token, nil, nil); code != 404 {
				t.Errorf("the author reads the removed guide: %d", code)
			}
			// A moderator acting on the target just deleted: 404 naming it.
			in := map[string]any{"action": "hide", "target_type": "guide", "target_id": g.ID, "reason": "late"}
			if code, raw := b.call("POST", "/v1/moderation/actions", modToken, in, nil); code != 404 || !strings.Contains(string(raw), `"target_id"`) {
				t.Errorf("acting on a removed guide: %d %s", code, raw)
			}
			var audit struct{ Items []struct{ Action string } }
			b.call("GET", "/v1/moderation/audit", modToken, nil, &audit)
			if len(audit.Items) != 3 || audit.Items[0].Action != "remove" {
				t.Errorf("audit %+v", audit.Items)
			}
		})
	}
}

// Reports: a flood of fresh guests holds nothing; enough established
// accounts hide the guide on the other process until a moderator looks;
// repeats return the open report; self-reports, deleted targets and floods
// from one account are refused; the queue, the role guard and a suspended
// moderator.
func TestReportsHoldsAndTheModeratorGuard(t *testing.T) {
	env := append(stackEnv(t, testkit.RedisDBE2E), "RATE_GUEST_PER_IP=1000/1h", "RATE_SIGNUP_PER_IP=1000/1h",
		"RATE_REPORTS_PER_USER=5/1h", "MODERATION_AUTO_HIDE_REPORTS=3", "MODERATION_CONTACT=safety@example.com")
	a, b := startServe(t, env), startServe(t, env)
	authorID, token := a.member("writer@example.com")
	_, modToken := a.member("lead@example.com")
	admin(t, env, "grant-moderator", "lead@example.com")
	var g struct{ ID string }
	if code, raw := a.call("POST", "/v1/guides", token, map[string]any{"title": "Lantern market", "lat": modLat, "lng": modLng}, &g); code != 201 {
		t.Fatalf("create: %d %s", code, raw)
	}
	report := func(api *guideAPI, tok, typ, id string) (int, string) {
		t.Helper()
		code, raw := api.call("POST", "/v1/reports", tok, map[string]any{"target_type": typ, "target_id": id, "reason": "spam", "note": "x"}, nil)
		return code, string(raw)
	}
	for i := range 20 {
		_, guest := a.guest()
		code, raw := report(a, guest, "guide", g.ID)
		again, raw2 := report(b, guest, "guide", g.ID)
		if code != 202 || again != 202 || raw != raw2 {
			t.Fatalf("guest %d: %d %s, then %d %s", i, code, raw, again, raw2)
		}
	}
	time.Sleep(200 * time.Millisecond) // a hold would have been notified by now
	if !b.surfaces(g.ID).nearby {
		t.Fatal("a flood of fresh guests hid the guide")
	}
	for i := range 3 {
		_, tok := a.member(fmt.Sprintf("reporter%d@example.com", i))
		if code, raw := report(a, tok, "guide", g.ID); code != 202 {
			t.Fatalf("report %d: %d %s", i, code, raw)
		}
	}
	within(t, time.Second, "held guide off the other process", func() bool { return b.surfaces(g.ID).none() })

	if code, raw := report(a, token, "guide", g.ID); code != 422 || !strings.Contains(raw, `"self"`) {
		t.Errorf("self-report: %d %s", code, raw)
	}
	if code, raw := report(a, token, "user", authorID); code != 422 {
		t.Errorf("reporting yourself: %d %s", code, raw)
	}
	_, flooder := a.member("flood@example.com")
	var codes []int
	for range 8 {
		c, _ := report(a, flooder, "user", authorID)
		codes = append(codes, c)
	}
	if codes[0] != 202 || codes[len(codes)-1] != 429 {
		t.Errorf("one account's report flood: %v", codes)
	}
	var q struct {
		Items []struct {
			TargetID  string `json:"target_id"`
			Reporters int    `json:"reporters"`
			Target    struct {
				Hidden *struct{ Reason string } `json:"hidden"`
			} `json:"target"`
		}
	}
	if code, raw := b.call("GET", "/v1/moderation/reports", modToken, nil, &q); code != 200 || len(q.Items) != 2 ||
		q.Items[0].TargetID != g.ID || q.Items[0].Reporters != 23 || q.Items[0].Target.Hidden == nil {
		t.Fatalf("queue: %d %s", code, raw)
	}
	if code, _ := b.call("GET", "/v1/moderation/reports", token, nil, nil); code != 403 {
		t.Errorf("a non-moderator reads the queue: %d", code)
	}
	in := map[string]any{"action": "dismiss", "target_type": "guide", "target_id": g.ID, "reason": "fine"}
	if code, raw := b.call("POST", "/v1/moderation/actions", modToken, in, nil); code != 200 {
		t.Fatalf("dismiss: %d %s", code, raw)
	}
	within(t, time.Second, "dismissed guide back on the other process", func() bool { return b.surfaces(g.ID).all() })
	var mine struct {
		Items []struct{ Status, Outcome *string }
	}
	if _, raw := a.call("GET", "/v1/me/reports", flooder, nil, &mine); !strings.Contains(string(raw), `"status":"open"`) {
		t.Errorf("the flooder's reports: %s", raw)
	}
	_, reporter := a.member("late@example.com")
	report(a, reporter, "guide", g.ID)
	in["action"], in["reason"] = "remove", "gone"
	b.call("POST", "/v1/moderation/actions", modToken, in, nil)
	if _, raw := a.call("GET", "/v1/me/reports", reporter, nil, nil); !strings.Contains(string(raw), `"outcome":"remove"`) {
		t.Errorf("the reporter does not see the outcome: %s", raw)
	}
	if code, raw := report(a, reporter, "guide", g.ID); code != 404 || !strings.Contains(raw, `"target_id"`) {
		t.Errorf("reporting a deleted guide: %d %s", code, raw)
	}

	// A suspended moderator is refused at once, and cannot sign in again.
	_, mod2 := a.member("second@example.com")
	admin(t, env, "grant-moderator", "second@example.com")
	if code, _ := b.call("GET", "/v1/moderation/audit", mod2, nil, nil); code != 200 {
		t.Fatalf("the second moderator: %d", code)
	}
	var who struct{ ID string }
	a.call("GET", "/v1/me", mod2, nil, &who)
	in = map[string]any{"action": "suspend", "target_type": "user", "target_id": who.ID, "reason": "abuse"}
	if code, raw := a.call("POST", "/v1/moderation/actions", modToken, in, nil); code != 200 {
		t.Fatalf("suspend: %d %s", code, raw)
	}
	if code, _ := b.call("GET", "/v1/moderation/audit", mod2, nil, nil); code != 401 {
		t.Errorf("a suspended moderator's token: %d", code)
	}
	login := map[string]any{"email": "second@example.com", "password": "correct horse battery"}
	if code, raw := a.call("POST", "/v1/auth/login", "", login, nil); code != 403 {
		t.Errorf("a suspended account logs in: %d %s", code, raw)
	}
	admin(t, env, "revoke-moderator", "second@example.com")
	var about struct{ Contact string }
	if code, _ := a.call("GET", "/v1/about", "", nil, &about); code != 200 || about.Contact != "safety@example.com" {
		t.Errorf("about: %d %+v", code, about)
	}
}

// A hidden photo leaves the guide that shows it; with MEDIA_PUBLIC_BASE_URL
// its public derivatives move out of the public prefix until it is
// restored.
func TestAHiddenPhotosPublicObjectsMove(t *testing.T) {
	s3 := testkit.S3Config(t)
	env := append(stackEnv(t, testkit.RedisDBE2E), "S3_BUCKET="+s3.Bucket, "MEDIA_PUBLIC_BASE_URL=https://cdn.example.com")
	a := startServe(t, env)
	ownerID, token := a.member("photographer@example.com")
	_, modToken := a.member("pm@example.com")
	admin(t, env, "grant-moderator", "pm@example.com")
	photo := insertPhoto(t, dbPool(t, env), ownerID)
	blobs := objstore.New(s3)
	ctx := context.Background()
	// A versioned variant too: its immutable public URL is one a phone or a
	// CDN kept, and it must stop answering like the fixed names do.
	variant := "media/" + photo + "/0123456789ab/small.webp"
	for _, k := range []string{media.WebKey(photo), media.ThumbKey(photo), variant} {
		if err := blobs.Put(ctx, k, strings.NewReader("jpeg"), 4, "image/jpeg", ""); err != nil {
			t.Fatal(err)
		}
	}
	var g struct{ ID string }
	if code, raw := a.call("POST", "/v1/guides", token, map[string]any{"title": "Photo", "lat": modLat, "lng": modLng, "media_ids": []string{photo}}, &g); code != 201 {
		t.Fatalf("create: %d %s", code, raw)
	}
	act := func(action string) {
		in := map[string]any{"action": action, "target_type": "photo", "target_id": photo, "reason": "test"}
		if code, raw := a.call("POST", "/v1/moderation/actions", modToken, in, nil); code != 200 {
			t.Fatalf("%s: %d %s", action, code, raw)
		}
	}
	exists := func(key string) bool { ok, err := blobs.Exists(ctx, key); return ok && err == nil }
	act("hide")
	if exists(media.WebKey(photo)) || exists(media.ThumbKey(photo)) || !exists("withheld/"+media.WebKey(photo)) {
		t.Error("the hidden photo's public objects stayed under the public prefix")
	}
	if exists(variant) || !exists("withheld/"+variant) {
		t.Error("the hidden photo's versioned variant stayed under the public prefix")
	}
	if code, _ := a.call("GET", "/v1/media/"+photo, "", nil, nil); code != 404 {
		t.Errorf("anyone reads the hidden photo: %d", code)
	}
	if _, raw := a.call("GET", "/v1/media/"+photo, token, nil, nil); !strings.Contains(string(raw), `"web":null`) || !strings.Contains(string(raw), `"hidden"`) {
		t.Errorf("the owner's view: %s", raw)
	}
	if _, raw := a.call("GET", "/v1/guides/"+g.ID, "", nil, nil); strings.Contains(string(raw), photo) {
		t.Errorf("the guide still shows the hidden photo: %s", raw)
	}
	var near struct {
		Items []struct{ Cover *struct{ ID string } }
	}
	a.call("GET", fmt.Sprintf("/v1/guides/nearby?lat=%s&lng=%s&radius_m=100", fmtF(modLat), fmtF(modLng)), "", nil, &near)
	if len(near.Items) != 1 || near.Items[0].Cover != nil {
		t.Errorf("nearby still shows the cover: %+v", near.Items)
	}
	act("restore")
	if !exists(media.WebKey(photo)) || exists("withheld/"+media.WebKey(photo)) || !exists(variant) || exists("withheld/"+variant) {
		t.Error("the restored photo's objects did not come back")
	}
	if _, raw := a.call("GET", "/v1/guides/"+g.ID, "", nil, nil); !slices.Contains(strings.Split(string(raw), `"`), photo) {
		t.Errorf("the restored photo is not back in its guide: %s", raw)
	}
}
