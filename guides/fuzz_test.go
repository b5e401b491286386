package guides

import (
	"math"
	"strconv"
	"testing"
	"time"
)

// A cursor from a client is hostile until its MAC says otherwise: no input
// may panic, and whatever is accepted is a position this server could have
// issued, which encodes back to the same cursor.
func FuzzCursorDecode(f *testing.F) {
	s := cursorSigner{key: CursorKey("fuzz secret")}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	fp := fingerprint([]float64{37.5, 127, 1000}, "food")
	valid := s.encode(fp, cursorAt{Position: Position{DistanceM: 12.5, ID: "0192f0c1-0000-7000-8000-000000000001"}, Depth: 20, Issued: now})
	for _, seed := range []string{valid, "", "AAAA%%%%", valid[:len(valid)-1], valid + "A", "=", "\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		at, bad := s.decode(cursor, fp, now, "lat")
		if bad.Code != "" {
			return
		}
		if math.IsNaN(at.DistanceM) || math.IsInf(at.DistanceM, 0) || at.DistanceM < 0 || at.Depth >= MaxCursorDepth {
			t.Fatalf("accepted %q as %+v", cursor, at)
		}
		again, bad := s.decode(s.encode(fp, at), fp, now, "lat")
		if bad.Code != "" || again != at {
			t.Fatalf("%q: %+v re-encodes to %+v (%s)", cursor, at, again, bad.Message)
		}
	})
}

// Whatever ParseBBox accepts is a finite box inside the world with its
// corners in order, and prints back to itself.
func FuzzParseBBox(f *testing.F) {
	for _, seed := range []string{"126.9,37.5,127,37.6", " 126.9, 37.5 ,127,37.6", "179,0,-179,1", "1,2,3", "1,NaN,3,4",
		"-180,-90,180,90", "1e309,0,1,1", "0x1p-2,0,1,1", "1_0,0,20,1", ",,,", "-0,-0,0,0"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBBox("bbox", s)
		if err != nil {
			return
		}
		for _, v := range []float64{b.MinLng, b.MinLat, b.MaxLng, b.MaxLat} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%q: not finite: %+v", s, b)
			}
		}
		if b.MinLng < -180 || b.MaxLng > 180 || b.MinLat < -90 || b.MaxLat > 90 || b.MinLng > b.MaxLng || b.MinLat > b.MaxLat {
			t.Fatalf("%q: out of the world or out of order: %+v", s, b)
		}
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		again, err := ParseBBox("bbox", g(b.MinLng)+","+g(b.MinLat)+","+g(b.MaxLng)+","+g(b.MaxLat))
		if err != nil || again != b {
			t.Fatalf("%q: %+v prints back to %+v, %v", s, b, again, err)
		}
	})
}
