package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The guide panel's Report button sends the guide to the moderators as
// the tab's guest: the form opens, the report is accepted (202), the panel
// says so.
func TestMapReportButton(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a browser and the demo data")
	}
	b := newBrowser(t, 1280, 800)
	p := startMapStack(t)
	var page struct {
		Items []struct {
			ID       string
			Lat, Lng float64
		}
	}
	if code, raw := newGuideAPI(t, p.URL).call("GET", "/v1/guides?bbox=124,33,132,39&limit=1", "", nil, &page); code != 200 || len(page.Items) != 1 {
		t.Fatalf("a demo guide: %d %s", code, raw)
	}
	g := page.Items[0]
	b.do("load /map at the guide", chromedp.Navigate(fmt.Sprintf("%s/map#18/%f/%f", p.URL, g.Lat, g.Lng)))
	waitMapIdle(b, "the map at the guide", 60*time.Second)
	type point struct{ X, Y float64 }
	at := pollPage[point](b, "the guide drawn", 20*time.Second, fmt.Sprintf(`(() => {
		const f = guidepost.map.queryRenderedFeatures({layers: ['guides']}).find((f) => f.properties.id === %q);
		if (!f) return null;
		const p = guidepost.map.project(f.geometry.coordinates);
		return {X: p.x, Y: p.y};
	})()`, g.ID))
	b.do("open the guide", chromedp.MouseClickXY(at.X, at.Y))
	pollPage[bool](b, "the guide panel", 20*time.Second, fmt.Sprintf(`(() => {
		const p = document.getElementById('guide');
		return !p.hidden && p.dataset.guideId === %q && document.getElementById('guide-title').textContent !== '';
	})()`, g.ID))
	b.do("report it",
		chromedp.Click("#guide-report"),
		chromedp.WaitVisible("#report"),
		chromedp.Evaluate[chromedp.Void](`void (document.getElementById('report-reason').value = 'harassment')`),
		chromedp.SendKeys("#report-note", "rude words in the body"),
		chromedp.Click("#report-submit"),
	)
	status := pollPage[string](b, "the report's answer", 20*time.Second, `(() => {
		const s = document.getElementById('report-status');
		return s.textContent || null;
	})()`)
	if !strings.HasPrefix(status, "Reported") {
		t.Fatalf("the panel says %q", status)
	}
	if n := answered(p, "/v1/reports")[202]; n != 1 {
		t.Errorf("%d reports accepted, want 1", n)
	}
	screenshot(b)
	if problems := b.consoleProblems(); len(problems) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(problems, "\n"))
	}
}
