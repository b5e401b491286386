package e2e

// The demo map at /map in a real browser: the binary with the demo data,
// Chromium with software WebGL, and what a person would do on the page.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/guidepost/guidepost/internal/testkit"
)

// GUIDEPOST_MAP_SCREENSHOT names a file (relative to the repository root)
// that also gets the test's screenshot; `make map-screenshot` uses it for
// docs/map.png.
const screenshotEnv = "GUIDEPOST_MAP_SCREENSHOT"

func TestMapPage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a browser, the demo data and a photo render take ~20 s")
	}
	b := newBrowser(t, 1280, 800)
	p := startMapStack(t)
	likePhotoGuides(t, p.URL)

	b.do("load /map", chromedp.Navigate(p.URL+"/map#6.4/36.2/127.6"))
	waitMapIdle(b, "the map over Korea", 60*time.Second)
	// MapLibre fetches tiles in a worker, out of the page's sight: the
	// server's access log says what they were answered, the page what it
	// decoded and drew.
	tiles := answered(p, "/v1/tiles/")
	loaded := eval[int](b, `guidepost.map.querySourceFeatures('guides', {sourceLayer: 'clusters'}).length`)
	drawn := eval[map[string]int](b, `Object.fromEntries(['clusters', 'cluster-photos', 'guides'].map((l) =>
		[l, guidepost.map.queryRenderedFeatures({layers: [l]}).length]))`)
	if tiles[200] == 0 || loaded == 0 || drawn["clusters"] == 0 || drawn["cluster-photos"] == 0 {
		t.Fatalf("tiles answered %v, %d clusters loaded, drawn: %v", tiles, loaded, drawn)
	}

	clickCluster(b)
	pinned := pinGuide(b)
	openGuide(b, pinned)

	// Over Korea, the tag filter leaves the pinned guide alone; cleared,
	// the clusters come back: the screenshot, with the guide's photo in
	// the panel.
	b.do("filter by a tag",
		chromedp.Evaluate[chromedp.Void](`void guidepost.map.jumpTo({center: [126.75, 35.6], zoom: 6.45})`),
		chromedp.SendKeys("#tag", "picnic"))
	pollPage[bool](b, "only the guide tagged picnic", 20*time.Second, fmt.Sprintf(`(() => {
		const m = guidepost.map, f = m.queryRenderedFeatures({layers: ['clusters', 'guides']});
		return m.areTilesLoaded() && f.length === 1 && f[0].properties.id === %q;
	})()`, pinned))
	b.do("clear the tag", chromedp.Evaluate[chromedp.Void](`(() => {
		const tag = document.getElementById('tag');
		tag.value = '';
		tag.dispatchEvent(new Event('input'));
		tag.blur();
	})()`))
	pollPage[bool](b, "the clusters back", 20*time.Second, `(() => {
		const m = guidepost.map;
		return m.areTilesLoaded() && !m.isMoving() && m.queryRenderedFeatures({layers: ['cluster-photos']}).length > 0;
	})()`)
	waitMapIdle(b, "the map at rest", 10*time.Second)
	screenshot(b)
	if problems := b.consoleProblems(); len(problems) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(problems, "\n"))
	}
	// 499 is a tile MapLibre stopped waiting for as the view moved on.
	for status, n := range answered(p, "/") {
		if status >= 400 && status != 499 {
			t.Errorf("%d requests answered %d", n, status)
		}
	}
}

// startMapStack runs the binary the way `make run` does: migrations, the
// demo data (300 guides, 12 with photos), then the API and a worker in
// one process, against this test's database, bucket and Redis.
func startMapStack(t *testing.T) *testkit.Process {
	env := append(stackEnvWith(t, testkit.StartRedis(t).URL), "WORKER_CONCURRENCY=2")
	seed := exec.Command(testkit.Binary(t), "seed", "--demo")
	seed.Env = append(os.Environ(), env...)
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("seed --demo: %v\n%s", err, out)
	}
	return testkit.Start(t, env, freeAddr(t), "dev")
}

// answered counts the requests under path the process has logged, by status.
func answered(p *testkit.Process, path string) map[int]int {
	counts := map[int]int{}
	for line := range strings.Lines(settledOutput(p)) {
		var l struct {
			Msg    string `json:"msg"`
			Path   string `json:"path"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" && strings.HasPrefix(l.Path, path) {
			counts[l.Status]++
		}
	}
	return counts
}

// settledOutput is p's output once it has stopped growing for half a
// second (at most 10 s): the binary writes its access lines in batches,
// every 100 ms, so the line of a request just answered may not be out yet.
func settledOutput(p *testkit.Process) string {
	out := p.Output()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		next := p.Output()
		if next == out {
			break
		}
		out = next
	}
	return out
}

// demoPhotos is how many demo guides seed --demo gives a photo.
const demoPhotos = 12

// likePhotoGuides waits for the worker to render the demo photos, then
// likes each guide showing one: a cluster's marker is its most-liked
// guide's photo. It returns once the tile over Seoul carries one.
func likePhotoGuides(t *testing.T, base string) {
	a := newGuideAPI(t, base)
	photos := map[string]string{} // guide id → its photo's ThumbHash
	for deadline := time.Now().Add(2 * time.Minute); len(photos) < demoPhotos; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("2 minutes after start, %d of the %d demo photos are rendered", len(photos), demoPhotos)
		}
		var page struct {
			Items []struct {
				ID    string `json:"id"`
				Cover *struct {
					ThumbHash *string `json:"thumbhash"`
				} `json:"cover"`
			} `json:"items"`
		}
		a.call("GET", "/v1/guides?bbox=124,33,131,39&limit=500", "", nil, &page)
		for _, g := range page.Items {
			if g.Cover != nil && g.Cover.ThumbHash != nil {
				photos[g.ID] = *g.Cover.ThumbHash
			}
		}
	}
	_, token := a.guest()
	for id := range photos {
		if code, raw := a.call("PUT", "/v1/guides/"+id+"/like", token, nil, nil); code != 200 {
			t.Fatalf("like %s: %d %s", id, code, raw)
		}
	}
	x, y := tileOf(37.5665, 126.978, 6)
	tile := fmt.Sprintf("/v1/tiles/6/%d/%d.mvt", x, y)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		// A tile keeps its strings as they are: no need to decode it.
		_, raw := a.call("GET", tile, "", nil, nil)
		for _, h := range photos {
			if bytes.Contains(raw, []byte(h)) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the likes, tile %s shows no liked guide's photo", tile)
		}
	}
}

// tileOf is the Web Mercator tile holding a point at zoom z.
func tileOf(lat, lng float64, z int) (x, y int) {
	n := math.Exp2(float64(z))
	r := lat * math.Pi / 180
	return int((lng + 180) / 360 * n), int((1 - math.Log(math.Tan(r)+1/math.Cos(r))/math.Pi) / 2 * n)
}

// waitMapIdle waits until the map has loaded its style and every tile in
// view, and has stopped moving.
func waitMapIdle(b *browser, what string, limit time.Duration) {
	b.t.Helper()
	pollPage[bool](b, what, limit, `(() => {
		const m = window.guidepost && guidepost.map;
		return !!m && m.loaded() && m.areTilesLoaded() && !m.isMoving();
	})()`)
}

// clickCluster clicks, with the mouse, a cluster drawn clear of the side
// panel and the controls, and checks the map zooms to its expansion_zoom.
func clickCluster(b *browser) {
	b.t.Helper()
	type target struct {
		X, Y, From, To float64
	}
	c := pollPage[target](b, "a cluster to click", 10*time.Second, `(() => {
		const m = guidepost.map, w = m.getCanvas().clientWidth, h = m.getCanvas().clientHeight;
		for (const f of m.queryRenderedFeatures({layers: ['clusters']})) {
			const p = m.project(f.geometry.coordinates);
			if (p.x < 340 || p.x > w - 60 || p.y < 60 || p.y > h - 60) continue;
			const [top] = m.queryRenderedFeatures(p, {layers: ['guide-photos', 'guides', 'cluster-photos', 'clusters']});
			if (!top || top.sourceLayer !== 'clusters') continue;
			return {X: p.x, Y: p.y, From: m.getZoom(), To: Number(f.properties.expansion_zoom)};
		}
		return null;
	})()`)
	if !(c.To > c.From) {
		b.t.Fatalf("cluster at zoom %.2f opens at %.2f", c.From, c.To)
	}
	b.do("click the cluster", chromedp.MouseClickXY(c.X, c.Y))
	pollPage[bool](b, fmt.Sprintf("the map to zoom from %.2f to %.2f", c.From, c.To), 15*time.Second,
		fmt.Sprintf(`!guidepost.map.isMoving() && Math.abs(guidepost.map.getZoom() - %f) < 0.01`, c.To))
	waitMapIdle(b, "the tiles of the opened cluster", 30*time.Second)
}

// pinGuide uploads a photo as a guest through the page's form and pins a
// guide at the map's centre; it returns the guide's id once the guide is
// drawn from the server's tiles.
func pinGuide(b *browser) string {
	b.t.Helper()
	photo := filepath.Join(testkit.RepoRoot(b.t), "testdata", "photos", "photo.jpg")
	b.do("fill in the pin form",
		// Seoul Forest: over a kilometre from any demo guide, so the new
		// guide gets a marker of its own.
		chromedp.Evaluate[chromedp.Void](`void guidepost.map.jumpTo({center: [127.0374, 37.5444], zoom: 13})`),
		chromedp.Click("#pin-box summary"),
		chromedp.WaitVisible("#crosshair"),
		chromedp.SetUploadFiles("#pin-file", []string{photo}),
		chromedp.SendKeys("#pin-title", "Seoul Forest picnic lawn"),
		chromedp.SendKeys("#pin-tags", "park, picnic"),
		chromedp.Click("#pin-submit"),
	)
	id := pollPage[string](b, "the photo to turn ready and the guide to be pinned", 90*time.Second, `(() => {
		const s = document.getElementById('pin-status');
		if (s.classList.contains('error')) return 'error: ' + s.textContent;
		return document.getElementById('pin').dataset.guideId || null;
	})()`)
	if strings.HasPrefix(id, "error: ") {
		b.t.Fatalf("pinning failed on the page: %s", id)
	}
	// Its marker is its photo's ThumbHash, over the plain circle.
	pollPage[bool](b, "the pinned guide drawn from the tiles", 20*time.Second, fmt.Sprintf(`(() => {
		const m = guidepost.map;
		const drawn = (layer) => m.queryRenderedFeatures({layers: [layer]}).some((f) => f.properties.id === %q);
		return m.areTilesLoaded() && !m.isMoving() && drawn('guides') && drawn('guide-photos');
	})()`, id))
	return id
}

// openGuide closes the guide panel, clicks the guide's marker and checks
// the panel shows its photo: the ThumbHash placeholder, then the WebP
// variant the browser chose from the srcset for the panel's width.
func openGuide(b *browser, id string) {
	b.t.Helper()
	b.do("close the guide panel", chromedp.Click("#guide-close"))
	at := markerAt(b, id)
	b.do("click the pinned guide", chromedp.MouseClickXY(at.X, at.Y))
	pollPage[bool](b, "the guide's photo: placeholder, then the photo", 20*time.Second, fmt.Sprintf(`(() => {
		const g = document.getElementById('guide');
		if (g.hidden || g.dataset.guideId !== %q) return false;
		const ph = g.querySelector('.photo'), img = ph && ph.querySelector('img');
		return !!img && ph.style.backgroundImage.startsWith('url("data:image/png') &&
			img.complete && img.naturalWidth > 0 && img.classList.contains('loaded');
	})()`, id))
	// The photo (640×480: its small WebP is 540 px wide, the larger kinds
	// 640) alone fills the 280 px panel at a pixel ratio of 1: the browser
	// takes the smallest WebP wider than 280 px, the 540 px one.
	variants := eval[[]struct {
		Kind, Format, URL string
		Width             int
	}](b, fmt.Sprintf(`fetch('/v1/guides/%s').then((r) => r.json()).then((g) => g.media[0].urls.variants)`, id))
	chosen := eval[struct {
		Src, Type, Kind string
		Width           int
		Srcset          []string
	}](b, `(() => {
		const img = document.querySelector('#guide .photo img'), source = img.parentElement.querySelector('source');
		return {Src: img.currentSrc, Type: source ? source.type : '', Width: img.naturalWidth,
			Srcset: source ? source.srcset.split(', ') : []};
	})()`)
	// Objects compared by path: a presigned URL read in another hour
	// carries another signature.
	object := func(candidate string) string {
		u, _ := url.Parse(candidate)
		return u.Path
	}
	for i, c := range chosen.Srcset {
		u, w, _ := strings.Cut(c, " ")
		chosen.Srcset[i] = object(u) + " " + w
	}
	var webp []string
	widths := map[int]bool{}
	for _, v := range variants {
		if v.Format == "webp" && v.Kind != "marker" && !widths[v.Width] {
			widths[v.Width] = true
			webp = append(webp, fmt.Sprintf("%s %dw", object(v.URL), v.Width))
		}
		if object(v.URL) == object(chosen.Src) {
			chosen.Kind = v.Kind + "." + v.Format
		}
	}
	if chosen.Type != "image/webp" || !slices.Equal(chosen.Srcset, webp) || len(webp) < 2 {
		b.t.Fatalf("the panel's <source> %q offers %v; the photo's WebP variants are %v", chosen.Type, chosen.Srcset, webp)
	}
	// naturalWidth is in CSS pixels: the 540w candidate shown 280 px wide.
	if chosen.Kind != "small.webp" || chosen.Width != 280 {
		b.t.Fatalf("the panel shows %s (%s, %d px wide), want the 540 px WebP", chosen.Src, chosen.Kind, chosen.Width)
	}
}

type point struct{ X, Y float64 }

// markerAt is where on the page guide id's marker is drawn.
func markerAt(b *browser, id string) point {
	b.t.Helper()
	return eval[point](b, fmt.Sprintf(`(() => {
		const f = guidepost.map.queryRenderedFeatures({layers: ['guides']}).find((f) => f.properties.id === %q);
		const p = guidepost.map.project(f.geometry.coordinates);
		return {X: p.x, Y: p.y};
	})()`, id))
}

// screenshot writes the page to the test's temporary folder and, when
// GUIDEPOST_MAP_SCREENSHOT is set, to that file too.
func screenshot(b *browser) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	paths := []string{filepath.Join(b.t.TempDir(), "map.png")}
	if p := os.Getenv(screenshotEnv); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(testkit.RepoRoot(b.t), p)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			b.t.Fatalf("screenshot: %v", err)
		}
		b.t.Logf("screenshot: %s", p)
	}
}
