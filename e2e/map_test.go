package e2e

// The demo map at /map in a real browser: the binary with the demo data,
// Chromium with software WebGL, and what a person would do on the page.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

	b.do("load /map", chromedp.Navigate(p.URL+"/map#6.4/36.2/127.6"))
	waitMapIdle(b, "the map over Korea", 60*time.Second)
	tiles := eval[int](b, `performance.getEntriesByType('resource')
		.filter((e) => e.name.includes('/v1/tiles/') && e.responseStatus === 200).length`)
	if tiles == 0 {
		t.Fatal("the page fetched no tile with features")
	}
	drawn := eval[int](b, `guidepost.map.queryRenderedFeatures({layers: ['clusters', 'guides']}).length`)
	if drawn == 0 {
		t.Fatalf("%d tiles with features, none drawn", tiles)
	}

	clickCluster(b)
	pinned := pinGuide(b)
	openGuide(b, pinned)

	screenshot(b)
	if problems := b.consoleProblems(); len(problems) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(problems, "\n"))
	}
}

// startMapStack runs the binary the way `make run` does: migrations, the
// demo data (300 guides, 12 with photos), then the API and a worker in
// one process, against this test's database, bucket and Redis.
func startMapStack(t *testing.T) *testkit.Process {
	s3 := testkit.S3Config(t)
	env := []string{
		"DATABASE_URL=" + testkit.DatabaseURL(t), "REDIS_URL=" + testkit.StartRedis(t).URL,
		"S3_ENDPOINT=" + s3.Endpoint, "S3_BUCKET=" + s3.Bucket,
		"S3_ACCESS_KEY=" + s3.AccessKey, "S3_SECRET_KEY=" + s3.SecretKey,
		"LOG_FORMAT=json", "JWT_SECRET=" + e2eJWTSecret, "WORKER_CONCURRENCY=2",
	}
	seed := exec.Command(testkit.Binary(t), "seed", "--demo")
	seed.Env = append(os.Environ(), env...)
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("seed --demo: %v\n%s", err, out)
	}
	return testkit.Start(t, env, freeAddr(t), "dev")
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
		chromedp.Evaluate[chromedp.Void](`guidepost.map.jumpTo({center: [126.9895, 37.5512], zoom: 13})`),
		chromedp.SetUploadFiles("#pin-file", []string{photo}),
		chromedp.SendKeys("#pin-title", "Namsan lookout"),
		chromedp.SendKeys("#pin-tags", "view, maptest"),
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
	pollPage[bool](b, "the pinned guide drawn from the tiles", 20*time.Second, fmt.Sprintf(`(() => {
		const m = guidepost.map;
		return m.areTilesLoaded() && !m.isMoving() &&
			m.queryRenderedFeatures({layers: ['guides']}).some((f) => f.properties.id === %q);
	})()`, id))
	return id
}

// openGuide closes the guide panel, clicks the guide's marker and checks
// the panel shows its photo: the ThumbHash placeholder, then the thumbnail.
func openGuide(b *browser, id string) {
	b.t.Helper()
	b.do("close the guide panel", chromedp.Click("#guide-close"))
	type point struct{ X, Y float64 }
	at := eval[point](b, fmt.Sprintf(`(() => {
		const f = guidepost.map.queryRenderedFeatures({layers: ['guides']}).find((f) => f.properties.id === %q);
		const p = guidepost.map.project(f.geometry.coordinates);
		return {X: p.x, Y: p.y};
	})()`, id))
	b.do("click the pinned guide", chromedp.MouseClickXY(at.X, at.Y))
	pollPage[bool](b, "the guide's photo: placeholder, then thumbnail", 20*time.Second, fmt.Sprintf(`(() => {
		const g = document.getElementById('guide');
		if (g.hidden || g.dataset.guideId !== %q) return false;
		const ph = g.querySelector('.photo'), img = ph && ph.querySelector('img');
		return !!img && ph.style.backgroundImage.startsWith('url("data:image/png') &&
			img.complete && img.naturalWidth > 0 && img.classList.contains('loaded');
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
