package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The demo map hides a blocked author's guides: a person opens a guide,
// blocks its author from the panel, and the author's markers leave the
// map (a MapLibre filter on author_id, the tiles being shared) while
// another author's stay; after a reload the page reads its blocks again
// and keeps them hidden.
func TestMapHidesBlockedAuthors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a browser and the demo data take ~15 s")
	}
	b := newBrowser(t, 1280, 800)
	p := startMapStack(t)
	a := newGuideAPI(t, p.URL)
	guide := func(title string, lat float64) string {
		_, token := a.guest()
		var g struct{ ID string }
		// Ulleungdo, far from every demo guide.
		if code, raw := a.call("POST", "/v1/guides", token, map[string]any{"title": title, "lat": lat, "lng": 130.9057}, &g); code != 201 {
			t.Fatalf("create: %d %s", code, raw)
		}
		return g.ID
	}
	bad, kept := guide("Ulleung harbour (blocked author)", 37.4845), guide("Ulleung lookout", 37.4930)
	drawn := func(what string, want map[string]bool) {
		t.Helper()
		pollPage[bool](b, what, 20*time.Second, fmt.Sprintf(`(() => {
			const m = guidepost.map;
			if (!m.loaded() || !m.areTilesLoaded() || m.isMoving()) return false;
			const ids = new Set(m.queryRenderedFeatures({layers: ['guides']}).map((f) => f.properties.id));
			return ids.has(%q) === %v && ids.has(%q) === %v;
		})()`, bad, want[bad], kept, want[kept]))
	}

	b.do("load /map over Ulleungdo", chromedp.Navigate(p.URL+"/map#15/37.4887/130.9057"))
	waitMapIdle(b, "the map over Ulleungdo", 60*time.Second)
	drawn("both authors' guides", map[string]bool{bad: true, kept: true})
	at := markerAt(b, bad)
	b.do("open the guide", chromedp.MouseClickXY(at.X, at.Y))
	pollPage[bool](b, "the panel with its block button", 20*time.Second, fmt.Sprintf(`(() => {
		const g = document.getElementById('guide');
		return !g.hidden && g.dataset.guideId === %q && !document.getElementById('guide-block').hidden;
	})()`, bad))
	b.do("block its author", chromedp.Click("#guide-block"))
	drawn("only the other author's guide", map[string]bool{kept: true})
	filter := eval[string](b, `JSON.stringify(guidepost.map.getFilter('guides'))`)
	if want := `["!",["in",["get","author_id"],["literal",[`; len(filter) < len(want) || filter[:len(want)] != want {
		t.Fatalf("the guides layer's filter is %s", filter)
	}

	b.do("reload the page", chromedp.Reload())
	waitMapIdle(b, "the map after a reload", 60*time.Second)
	pollPage[bool](b, "the blocks read again", 20*time.Second, `document.getElementById('map').dataset.blocked === '1'`)
	drawn("still only the other author's guide", map[string]bool{kept: true})
	screenshot(b)
	if problems := b.consoleProblems(); len(problems) > 0 {
		t.Errorf("console errors:\n%s", problems)
	}
}
