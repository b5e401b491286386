package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
)

// blockWorld is two authors' guides around one point, a viewer, and two
// API processes on one database.
type blockWorld struct {
	t              *testing.T
	a, b           *guideAPI
	viewer, vtoken string
	bad, badToken  string // the author the viewer blocks
	kept           []string
	blocked        []string
	photo          string // a ready photo of bad's
	viewerGuide    string
}

const blockLat, blockLng = 35.1796, 129.0756

func newBlockWorld(t *testing.T, extra ...string) *blockWorld {
	env := stackEnv(t, testkit.RedisDBE2E)
	w := &blockWorld{t: t, a: startServe(t, env, extra...), b: startServe(t, env, extra...)}
	w.viewer, w.vtoken = w.a.guest()
	w.bad, w.badToken = w.a.guest()
	_, goodToken := w.a.guest()
	rng := rand.New(rand.NewPCG(22, 2))
	create := func(token, title string) string {
		var g struct{ ID string }
		body := map[string]any{"title": title, "lat": blockLat + (rng.Float64()-0.5)*0.02, "lng": blockLng + (rng.Float64()-0.5)*0.02}
		if code, raw := w.a.call("POST", "/v1/guides", token, body, &g); code != 201 {
			t.Fatalf("create: %d %s", code, raw)
		}
		return g.ID
	}
	for i := range 24 {
		w.kept = append(w.kept, create(goodToken, fmt.Sprintf("Harbour kept %d", i)))
		w.blocked = append(w.blocked, create(w.badToken, fmt.Sprintf("Harbour blocked %d", i)))
	}
	w.viewerGuide = create(w.vtoken, "Harbour viewer's own")
	w.photo = insertPhoto(t, dbPool(t, env), w.bad)
	return w
}

// walk pages through a list with limit, checking that every page but the
// last is full, and returns the ids.
func (w *blockWorld) walk(api *guideAPI, path, token string, limit int) []string {
	w.t.Helper()
	var ids []string
	cursor := ""
	for {
		var page struct {
			Items      []apiItem `json:"items"`
			NextCursor *string   `json:"next_cursor"`
		}
		p := path + "&limit=" + strconv.Itoa(limit)
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		if code, raw := api.call("GET", p, token, nil, &page); code != 200 {
			w.t.Fatalf("%s: %d %s", p, code, raw)
		}
		for _, it := range page.Items {
			ids = append(ids, it.ID)
		}
		if page.NextCursor == nil {
			return ids
		}
		if len(page.Items) != limit {
			w.t.Fatalf("%s: a page of %d items before the last, want %d", p, len(page.Items), limit)
		}
		cursor = *page.NextCursor
	}
}

// view is what one process shows the viewer on every surface.
type view struct {
	nearby, box, search []string
	clustered           int64
	guide, media, batch bool // the blocked author's guide, photo, photo in a batch
}

func (w *blockWorld) view(api *guideAPI, token string) view {
	w.t.Helper()
	at := "lat=" + fmtF(blockLat) + "&lng=" + fmtF(blockLng)
	var v view
	v.nearby = w.walk(api, "/v1/guides/nearby?"+at+"&radius_m=5000", token, 7)
	v.search = w.walk(api, "/v1/guides/nearby?"+at+"&radius_m=5000&q=harbour", token, 5)
	v.box = w.walk(api, "/v1/guides?bbox=129.05,35.16,129.1,35.2", token, 9)
	var cl struct {
		Clusters []struct {
			Count int64 `json:"count"`
		} `json:"clusters"`
	}
	if code, raw := api.call("GET", "/v1/guides/clusters?bbox=129.05,35.16,129.1,35.2&zoom=11", token, nil, &cl); code != 200 {
		w.t.Fatalf("clusters: %d %s", code, raw)
	}
	for _, c := range cl.Clusters {
		v.clustered += c.Count
	}
	code, _ := api.call("GET", "/v1/guides/"+w.blocked[0], token, nil, nil)
	v.guide = code == 200
	code, _ = api.call("GET", "/v1/media/"+w.photo, token, nil, nil)
	v.media = code == 200
	var batch struct {
		Items []struct{ ID string } `json:"items"`
	}
	api.call("GET", "/v1/media?ids="+w.photo, token, nil, &batch)
	v.batch = len(batch.Items) == 1
	return v
}

// sorted is ids sorted, for comparing sets.
func sorted(ids ...[]string) []string {
	return slices.Sorted(slices.Values(slices.Concat(ids...)))
}

// hides reports whether v is exactly the world without the blocked
// author's guides and photo.
func (w *blockWorld) hides(v view) bool {
	want := sorted(w.kept, []string{w.viewerGuide})
	return slices.Equal(sorted(v.nearby), want) && slices.Equal(sorted(v.box), want) &&
		slices.Equal(sorted(v.search), want) && v.clustered == int64(len(want)) && !v.guide && !v.media && !v.batch
}

// shows reports whether v is the whole world.
func (w *blockWorld) shows(v view) bool {
	want := sorted(w.kept, w.blocked, []string{w.viewerGuide})
	return slices.Equal(sorted(v.nearby), want) && slices.Equal(sorted(v.box), want) &&
		slices.Equal(sorted(v.search), want) && v.clustered == int64(len(want)) && v.guide && v.media && v.batch
}

// A block made on one process takes the blocked author's guides and photo
// out of every answer the blocker gets from the other within a second
// (nearby, viewport, text search, clusters, the guide, the photo, a batch
// of photos), with full pages; the blocked author can no longer like the
// blocker's guides; an unblock puts everything back. Anonymous answers
// never change. With Redis up, with the map cache off, and with Redis
// stopped.
func TestBlocksReachEverySurfaceOnEveryProcess(t *testing.T) {
	t.Run("redis", func(t *testing.T) { checkBlocks(t, newBlockWorld(t)) })
	t.Run("cache off", func(t *testing.T) { checkBlocks(t, newBlockWorld(t, "GUIDES_CACHE=off")) })
	t.Run("redis stopped", func(t *testing.T) {
		redis := testkit.StartRedis(t)
		w := newBlockWorld(t, "REDIS_URL="+redis.URL)
		redis.Stop()
		checkBlocks(t, w)
	})
}

func checkBlocks(t *testing.T, w *blockWorld) {
	if v := w.view(w.b, w.vtoken); !w.shows(v) {
		t.Fatalf("before the block the viewer sees %+v", v)
	}
	var blk struct {
		User struct {
			ID string `json:"id"`
		} `json:"user"`
		CreatedAt string `json:"created_at"`
	}
	if code, raw := w.a.call("PUT", "/v1/me/blocks/"+w.bad, w.vtoken, nil, &blk); code != 200 || blk.User.ID != w.bad {
		t.Fatalf("block: %d %s", code, raw)
	}
	within(t, time.Second, "the block on the other process", func() bool { return w.hides(w.view(w.b, w.vtoken)) })
	if v := w.view(w.a, w.vtoken); !w.hides(v) {
		t.Fatalf("the blocking process shows the viewer %+v", v)
	}
	if v := w.view(w.b, ""); !w.shows(v) {
		t.Fatalf("anonymous answers changed: %+v", v)
	}
	if code, raw := w.b.call("PUT", "/v1/guides/"+w.viewerGuide+"/like", w.badToken, nil, nil); code != 403 || !strings.Contains(string(raw), "blocked") {
		t.Fatalf("the blocked author likes the blocker's guide: %d %s", code, raw)
	}
	if code, _ := w.b.call("PUT", "/v1/guides/"+w.kept[0]+"/like", w.badToken, nil, nil); code != 200 {
		t.Fatalf("the blocked author cannot like another's guide: %d", code)
	}
	var again struct {
		CreatedAt string `json:"created_at"`
	}
	if code, _ := w.b.call("PUT", "/v1/me/blocks/"+w.bad, w.vtoken, nil, &again); code != 200 || again.CreatedAt != blk.CreatedAt {
		t.Fatalf("blocking again: %d, created %s, want %s", code, again.CreatedAt, blk.CreatedAt)
	}
	var list struct {
		Items []struct {
			User struct {
				ID string `json:"id"`
			} `json:"user"`
		} `json:"items"`
	}
	if code, raw := w.b.call("GET", "/v1/me/blocks", w.vtoken, nil, &list); code != 200 || len(list.Items) != 1 || list.Items[0].User.ID != w.bad {
		t.Fatalf("list: %d %s", code, raw)
	}
	if code, raw := w.b.call("DELETE", "/v1/me/blocks/"+w.bad, w.vtoken, nil, nil); code != 204 {
		t.Fatalf("unblock: %d %s", code, raw)
	}
	within(t, time.Second, "the unblock on the other process", func() bool { return w.shows(w.view(w.a, w.vtoken)) })
	if code, raw := w.a.call("PUT", "/v1/guides/"+w.viewerGuide+"/like", w.badToken, nil, nil); code != 200 {
		t.Fatalf("like after the unblock: %d %s", code, raw)
	}
}

// Blocking yourself is 422 naming user_id, an unknown or malformed id 404
// naming user_id, on both routes; unblocking a user never blocked is 204.
func TestBlocksHostileIDs(t *testing.T) {
	env := stackEnv(t, testkit.RedisDBE2E)
	api := startServe(t, env)
	me, token := api.guest()
	other, _ := api.guest()
	for _, method := range []string{"PUT", "DELETE"} {
		code, raw := api.call(method, "/v1/me/blocks/"+me, token, nil, nil)
		if code != 422 || !strings.Contains(string(raw), `"field":"user_id","code":"self"`) {
			t.Errorf("%s yourself: %d %s", method, code, raw)
		}
		for _, id := range []string{"0190b7a0-0000-7000-8000-000000000000", "nobody", "%20"} {
			code, raw := api.call(method, "/v1/me/blocks/"+id, token, nil, nil)
			if code != 404 || !strings.Contains(string(raw), `"field":"user_id","code":"not_found"`) {
				t.Errorf("%s %s: %d %s", method, id, code, raw)
			}
		}
		if code, _ := api.call(method, "/v1/me/blocks/"+other, "", nil, nil); code != 401 {
			t.Errorf("%s without a token: %d", method, code)
		}
	}
	if code, _ := api.call("DELETE", "/v1/me/blocks/"+other, token, nil, nil); code != 204 {
		t.Errorf("unblocking a user never blocked: %d", code)
	}
	if code, raw := api.call("GET", "/v1/me/blocks?limit=0", token, nil, nil); code != 400 || !strings.Contains(string(raw), `"field":"limit"`) {
		t.Errorf("limit 0: %d %s", code, raw)
	}
}
