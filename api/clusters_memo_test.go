package api_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// World-scale clusterings (the whole world at low zooms, a country) are
// answered from memory while their area is unchanged: byte for byte the
// database's answer, repeated requests without If-None-Match take no
// connection from the pool and are sent as the bytes built for their
// version, and a new guide shows in the next answer within a second, on a
// process that did not write it.
func TestWorldClustersAnswerFromMemory(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	if err := seedgen.Guides(ctx, db, 3000, 7, nil); err != nil {
		t.Fatal(err)
	}
	placeGuides(t, db, [2]float64{48.8566, 2.3522}, [2]float64{40.7128, -74.006}, [2]float64{-33.8688, 151.2093})
	plain := mapServer(t, db, gsql.NewGuides(db)) // no cache: PostgreSQL counts every answer
	// Like counts are read at start, then not for an hour: the test counts
	// every connection taken from the pool.
	h := cachedMapServer(t, db, apiRedis(t), time.Hour)
	var paths []string
	for z := range 6 {
		paths = append(paths, fmt.Sprintf("/v1/guides/clusters?bbox=-180,-85,180,85&zoom=%d", z))
	}
	paths = append(paths, "/v1/guides/clusters?bbox=-180,-85,180,85&zoom=2.5&tag=food",
		"/v1/guides/clusters?bbox=124,33,132,39&zoom=7", "/v1/guides/clusters?bbox=124,33,132,39&zoom=9.2&tag=food")
	body := func(h *harness, path string) []byte {
		t.Helper()
		status, _, raw := h.send("GET", path, "", "", nil)
		if status != 200 {
			t.Fatalf("GET %s: %d %s", path, status, raw)
		}
		return raw
	}
	same := func(what string) {
		t.Helper()
		for _, path := range paths {
			if got, want := body(h, path), body(plain, path); !bytes.Equal(got, want) {
				t.Fatalf("%s: GET %s from memory:\n%s\nfrom PostgreSQL:\n%s", what, path, got, want)
			}
		}
	}
	same("first answers")
	before := settled(t, db.Pool) // background work the first answers started
	hits := memoHits(t, h)
	for range 10 {
		for _, path := range paths {
			body(h, path)
		}
	}
	if n := db.Pool.Stat().AcquireCount() - before; n != 0 {
		t.Fatalf("%d world-scale clusterings took %d connections from the pool", 10*len(paths), n)
	}
	// Nor were they encoded again: the bytes are kept by version.
	if n := memoHits(t, h) - hits; n != 10*len(paths) {
		t.Fatalf("%d of %d world-scale clusterings sent from the answers kept by version", n, 10*len(paths))
	}
	// The count does see queries: a viewport never asked before is counted
	// by PostgreSQL.
	body(h, "/v1/guides/clusters?bbox=-170,-80,170,80&zoom=1")
	if db.Pool.Stat().AcquireCount() == before {
		t.Fatal("a new clustering took no connection: the count proves nothing")
	}

	// Another process writes; this one's next answers hold the guide.
	world := paths[3]
	old := body(h, world)
	placeGuides(t, db, [2]float64{-1.2921, 36.8219})
	start := time.Now()
	for bytes.Equal(body(h, world), old) {
		if time.Since(start) > time.Second {
			t.Fatal("the new guide is not in the world's clusters after a second")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("a new guide showed in the world's clusters after %s", time.Since(start))
	same("after a write")
}
