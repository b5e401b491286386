package api_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// mapServer is an API serving guides from db through store.
func mapServer(t *testing.T, db *gsql.DB, store guides.Store) *harness {
	t.Helper()
	clock := guidepost.SystemClock{}
	secret := strings.Repeat("k", 32)
	deps := guides.Deps{Store: store, Clock: clock}
	if st, ok := store.(guides.Stamps); ok {
		deps.Stamps = st
	}
	svc := guides.New(deps, guides.Config{CursorKey: guides.CursorKey(secret)})
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(),
		Auth:   auth.New(auth.Deps{Store: gsql.NewUsers(db), Tokens: auth.NewTokens(secret, time.Hour, clock), Clock: clock}, auth.Config{Sessions: auth.DefaultConfig().Sessions}),
		Guides: svc}, api.Config{})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &harness{t: t, srv: srv}
}

// placeGuides writes guides at the given points, tagged food on even ones.
func placeGuides(t *testing.T, db *gsql.DB, points ...[2]float64) []string {
	t.Helper()
	ctx := context.Background()
	author := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: author, DisplayName: "a", Guest: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store := gsql.NewGuides(db)
	ids := make([]string, len(points))
	for i, p := range points {
		tags := []string{"view"}
		if i%2 == 0 {
			tags = append(tags, "food")
		}
		ids[i] = uuid.Must(uuid.NewV7()).String()
		err := store.CreateGuide(ctx, guides.NewGuide{ID: ids[i], AuthorID: author, Title: "guide", Lat: p[0], Lng: p[1],
			Tags: tags, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// A tile is a vector tile with the guides and clusters layers, an empty
// one 204, and a bad address a 400 naming the part (or a 404 without the
// .mvt suffix).
func TestTileRoute(t *testing.T) {
	db := testkit.DB(t)
	h := mapServer(t, db, gsql.NewGuides(db))
	placeGuides(t, db, [2]float64{37.5665, 126.978}, [2]float64{37.5666, 126.9781}, [2]float64{37.58, 127.0})
	status, header, raw := h.send("GET", "/v1/tiles/10/873/396.mvt", "", "", nil)
	if status != 200 || header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
		t.Fatalf("tile: %d %q", status, header.Get("Content-Type"))
	}
	layers, err := mvt.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	features := map[string]int{}
	for _, l := range layers {
		features[l.Name] = len(l.Features)
	}
	if features["guides"] != 0 || features["clusters"] != 1 {
		t.Fatalf("zoom 10 over Seoul: %v", features)
	}
	if status, _, raw := h.send("GET", "/v1/tiles/10/0/0.mvt", "", "", nil); status != 204 || len(raw) != 0 {
		t.Fatalf("empty tile: %d, %d bytes", status, len(raw))
	}
	for path, field := range map[string]string{
		"/v1/tiles/21/0/0.mvt":        "z",
		"/v1/tiles/3/8/0.mvt":         "x",
		"/v1/tiles/3/0/-1.mvt":        "y",
		"/v1/tiles/a/0/0.mvt":         "z",
		"/v1/tiles/3/0/0.mvt?zoom=3":  "zoom",
		"/v1/tiles/3/0/0.mvt?tag=%20": "tag",
	} {
		problem(t, h.do("GET", path, "", ""), 400, field)
	}
	problem(t, h.do("GET", "/v1/tiles/3/0/0.pbf", "", ""), 404)
}

// Clusters take a tag and a fractional zoom, say where they open
// (expansion_zoom, bounds), and print coordinates without float noise.
func TestClustersOpenAndFilter(t *testing.T) {
	db := testkit.DB(t)
	h := mapServer(t, db, gsql.NewGuides(db))
	ids := placeGuides(t, db, [2]float64{37.5212345678, 127.0123456789}, [2]float64{37.52123457, 127.01934567},
		[2]float64{37.53, 127.03})
	status, _, raw := h.send("GET", "/v1/guides/clusters?bbox=126.9,37.4,127.1,37.6&zoom=10.5", "", "", nil)
	if status != 200 {
		t.Fatalf("clusters: %d %s", status, raw)
	}
	if long := regexp.MustCompile(`\d\.\d{8,}`).Find(raw); long != nil {
		t.Errorf("a coordinate with more than 7 decimals: %s in %s", long, raw)
	}
	r := h.do("GET", "/v1/guides/clusters?bbox=126.9,37.4,127.1,37.6&zoom=10.5", "", "")
	cl := r.body["clusters"].([]any)
	if len(cl) != 1 {
		t.Fatalf("zoom 10.5: %v", cl)
	}
	c := cl[0].(map[string]any)
	b := c["bounds"].([]any)
	if c["count"] != 3.0 || c["expansion_zoom"] == nil || b[0].(float64) != 127.0123456 || b[3].(float64) != 37.53 {
		t.Fatalf("cluster: %v", c)
	}
	r = h.do("GET", "/v1/guides/clusters?bbox=126.9,37.4,127.1,37.6&zoom=10&tag=food", "", "")
	cl = r.body["clusters"].([]any)
	if len(cl) != 1 || cl[0].(map[string]any)["count"] != 2.0 {
		t.Fatalf("tag food: %v", cl)
	}
	r = h.do("GET", "/v1/guides/clusters?bbox=127.0,37.52,127.035,37.535&zoom=17&tag=view", "", "")
	for _, k := range r.body["clusters"].([]any) {
		k := k.(map[string]any)
		if k["count"] != 1.0 || k["expansion_zoom"] != nil || k["guide_id"] == nil {
			t.Fatalf("zoom 17: %v", k)
		}
		if k["guide_id"] == ids[0] && (k["lat"] != 37.5212346 || k["lng"] != 127.0123457) {
			t.Fatalf("a single guide's place, rounded: %v", k)
		}
	}
	problem(t, h.do("GET", "/v1/guides/clusters?bbox=126.9,37.4,127.1,37.6&zoom=22.5", "", ""), 400, "zoom")
}
