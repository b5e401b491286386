package main

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
)

// The tiles scenario replays map sessions: each is a phone (390×844 CSS
// pixels, 512-pixel vector tiles, as MapLibre draws them) that opens on a
// city or the country, then pans, zooms in and out, and now and then flies
// elsewhere. After each gesture the map asks for every tile in view; a
// tile it has fetched before in the session is revalidated with
// If-None-Match, as a browser does with a no-cache answer. The trace is
// drawn once from a fixed seed, so a second replay (against the floor)
// sends the same requests in the same order.

const (
	screenW, screenH = 390.0, 844.0
	tilePx           = 512.0
	minMapZoom       = 5.0
	maxMapZoom       = 17.0
)

// tileSession is one map screen.
type tileSession struct {
	rng            *rand.Rand
	lat, lng, zoom float64
	tag            string

	mu    sync.Mutex
	etags map[string]string // path → ETag the session holds
}

// tileTrace is the arrivals of a run: the i-th asks for paths[i] on behalf
// of session sess[i].
type tileTrace struct {
	sessions []*tileSession
	paths    []string
	sess     []int
}

// newTileTrace draws n arrivals over sessions map sessions: arrival i
// belongs to session i mod sessions, which moves its camera whenever it
// has asked for every tile of its current view.
func newTileTrace(seed uint64, sessions, n int) *tileTrace {
	t := &tileTrace{sessions: make([]*tileSession, sessions), paths: make([]string, n), sess: make([]int, n)}
	queues := make([][]string, sessions)
	for i := range t.sessions {
		s := &tileSession{rng: rand.New(rand.NewPCG(seed, uint64(i))), etags: map[string]string{}}
		s.flyTo()
		if s.rng.Float64() < 0.15 {
			s.tag = []string{"food", "cafe", "night"}[s.rng.IntN(3)]
		}
		t.sessions[i] = s
	}
	for i := range n {
		k := i % sessions
		for len(queues[k]) == 0 {
			queues[k] = t.sessions[k].view()
			t.sessions[k].gesture()
		}
		t.paths[i], t.sess[i] = queues[k][0], k
		queues[k] = queues[k][1:]
	}
	return t
}

// flyTo opens the map somewhere new: a city or anywhere, zoomed in, or the
// whole country.
func (s *tileSession) flyTo() {
	s.lat, s.lng = s.point()
	s.zoom = 10 + s.rng.Float64()*5
	if s.rng.Float64() < 0.1 {
		s.lat, s.lng, s.zoom = 36.3, 127.8, 6+s.rng.Float64()
	}
}

// point is randomPoint with the session's own generator.
func (s *tileSession) point() (float64, float64) { return randomPoint(s.rng) }

// gesture moves the camera: pan (55 %), zoom in (20 %), zoom out (15 %),
// fly elsewhere (10 %).
func (s *tileSession) gesture() {
	px := tilePx * math.Exp2(s.zoom) // world width in pixels
	switch r := s.rng.Float64(); {
	case r < 0.55:
		angle := s.rng.Float64() * 2 * math.Pi
		dist := (0.2 + 0.4*s.rng.Float64()) * screenW
		s.lng += math.Cos(angle) * dist / px * 360
		s.lat = math.Max(-80, math.Min(80, s.lat+math.Sin(angle)*dist/px*360*math.Cos(s.lat*math.Pi/180)))
	case r < 0.75:
		s.zoom = math.Min(maxMapZoom, s.zoom+1)
		s.lng += (s.rng.Float64() - 0.5) * screenW / 2 / px * 360
		s.lat += (s.rng.Float64() - 0.5) * screenH / 2 / px * 360 * math.Cos(s.lat*math.Pi/180)
	case r < 0.90:
		s.zoom = math.Max(minMapZoom, s.zoom-1)
	default:
		s.flyTo()
	}
	s.lng = math.Mod(s.lng+540, 360) - 180
}

// view lists the tiles of the current camera, nearest the centre first.
func (s *tileSession) view() []string {
	z := int(math.Floor(s.zoom))
	n := math.Exp2(float64(z))
	scale := tilePx * math.Exp2(s.zoom-float64(z)) // pixels per tile at this zoom
	cx := (s.lng + 180) / 360 * n
	phi := s.lat * math.Pi / 180
	cy := (1 - math.Log(math.Tan(phi)+1/math.Cos(phi))/math.Pi) / 2 * n
	hx, hy := screenW/2/scale, screenH/2/scale
	var out []string
	for y := int(math.Floor(cy - hy)); y <= int(math.Floor(cy+hy)); y++ {
		if y < 0 || float64(y) >= n {
			continue
		}
		for x := int(math.Floor(cx - hx)); x <= int(math.Floor(cx+hx)); x++ {
			wx := (x%int(n) + int(n)) % int(n)
			p := "/v1/tiles/" + strconv.Itoa(z) + "/" + strconv.Itoa(wx) + "/" + strconv.Itoa(y) + ".mvt"
			if s.tag != "" {
				p += "?tag=" + s.tag
			}
			out = append(out, p)
		}
	}
	return out
}

// distinct lists every path the trace asks for, once.
func (t *tileTrace) distinct() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range t.paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// reset forgets what every session holds, for a second replay.
func (t *tileTrace) reset() {
	for _, s := range t.sessions {
		s.mu.Lock()
		s.etags = map[string]string{}
		s.mu.Unlock()
	}
}

// action replays arrival slot: conditional when its session holds the
// tile, keeping the ETag it is given.
func (t *tileTrace) action(e *env) action {
	return func(ctx context.Context, slot int) {
		i := slot % len(t.paths)
		s, path := t.sessions[t.sess[i]], t.paths[i]
		s.mu.Lock()
		held := s.etags[path]
		s.mu.Unlock()
		var etag string
		o := e.c.do(ctx, request{kind: "tile", method: http.MethodGet, path: path, ifNoneMatch: held, etag: &etag})
		if o.ok() && etag != "" {
			s.mu.Lock()
			s.etags[path] = etag
			s.mu.Unlock()
		}
	}
}
