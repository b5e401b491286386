package cache_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// The cache stays exact on a replica that replays two seconds late. Rounds
// of writes near Seoul, some by this process and some by another (the
// feed brings those), each followed by random nearby and viewport
// searches compared with the primary's answers: a tile loaded from the
// replica before it replayed its version, or a search sent to it before
// it replayed what the cache knows, would show the past.
func TestReplicaTwoSecondsBehindLeavesTheCacheExact(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private primary and replica")
	}
	ctx := context.Background()
	pair := testkit.StartPGPair(t, testkit.PairOptions{ApplyDelay: 2 * time.Second})
	primary, err := gsql.Open(ctx, pair.Primary.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(primary.Close)
	if err := seedgen.Guides(ctx, primary, 3000, 7, nil); err != nil {
		t.Fatal(err)
	}
	author := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(primary).CreateUser(ctx, auth.User{ID: author, DisplayName: "w", Guest: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	pair.CaughtUp(time.Minute)

	reg := prometheus.NewRegistry()
	db, err := gsql.OpenWith(ctx, pair.Primary.URL, gsql.Config{Replicas: gsql.ReplicaConfig{
		URLs: []string{pair.Replica.URL}, MaxLag: time.Minute, Every: 50 * time.Millisecond, Registerer: reg}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	store, truth := gsql.NewGuides(db), gsql.NewGuides(primary)
	c := startCache(t, store, nil, cache.Config{})

	rng := rand.New(rand.NewPCG(20, 2))
	seoul := func() (float64, float64) {
		return 37.5665 + rng.NormFloat64()*0.03, 126.978 + rng.NormFloat64()*0.04
	}
	var written []string
	compared := 0
	for round := range 5 {
		// Writes: new guides, and moves and deletes of earlier ones.
		var seen, gone []guides.NewGuide
		for i := range 8 {
			by := store
			if i%2 == 1 {
				by = truth // another process
			}
			lat, lng := seoul()
			g := guides.NewGuide{ID: uuid.Must(uuid.NewV7()).String(), AuthorID: author, Title: "r", Lat: lat, Lng: lng,
				Tags: []string{"food"}, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
			if err := by.CreateGuide(ctx, g); err != nil {
				t.Fatal(err)
			}
			written, seen = append(written, g.ID), append(seen, g)
		}
		if round > 0 {
			id := written[rng.IntN(len(written)-8)]
			lat, lng := seoul()
			if err := truth.UpdateGuide(ctx, id, func(d *guides.Draft) error { d.Lat, d.Lng = lat, lng; return nil }); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, guides.NewGuide{ID: id, Lat: lat, Lng: lng})
			del := written[rng.IntN(len(written)-8)]
			if del != id {
				var d guides.Draft
				err := store.DeleteGuide(ctx, del, func(x guides.Draft) error { d = x; return nil })
				if err != nil && guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
					t.Fatal(err)
				}
				gone = append(gone, guides.NewGuide{ID: del, Lat: d.Lat, Lng: d.Lng})
			}
		}
		// The cache has heard of every write once it shows it: before,
		// neither its tiles nor a replica 2 s behind could.
		for _, g := range seen {
			waitUntil(t, 30*time.Second, "the cache showing a write", func() bool { return shows(ctx, c, g) })
		}
		for _, g := range gone {
			if g.Lat != 0 {
				waitUntil(t, 30*time.Second, "the cache dropping a deletion", func() bool { return !shows(ctx, c, g) })
			}
		}
		for range 150 {
			lat, lng := seoul()
			q := guides.NearbyQuery{Lat: lat, Lng: lng, RadiusM: math.Exp(rng.Float64() * math.Log(20_000)), Limit: 1 + rng.IntN(50)}
			if rng.IntN(4) == 0 {
				q.Tag = "food"
			}
			got, err := c.Nearby(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := truth.Nearby(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameItems(got, want); diff != "" {
				t.Fatalf("round %d nearby %+v differs from the primary:\n%s", round, q, diff)
			}
			w := 0.002 + rng.Float64()*0.05
			bq := guides.BBoxQuery{BBox: guides.BBox{MinLat: lat - w, MinLng: lng - w, MaxLat: lat + w, MaxLng: lng + w}, Limit: 1 + rng.IntN(200)}
			gotB, gotT, err := c.InBBox(ctx, bq)
			if err != nil {
				t.Fatal(err)
			}
			wantB, wantT, err := truth.InBBox(ctx, bq)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameItems(gotB, wantB); diff != "" || gotT != wantT {
				t.Fatalf("round %d viewport %+v differs from the primary (truncated %v vs %v):\n%s", round, bq, gotT, wantT, diff)
			}
			compared += 2
		}
		// Let the replica catch up now and then, so that it serves.
		if round%2 == 1 {
			pair.CaughtUp(time.Minute)
		}
	}
	var replicaReads float64
	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() == "guidepost_db_reads_total" {
			for _, m := range f.GetMetric() {
				if m.GetLabel()[0].GetValue() != "primary" {
					replicaReads += m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Logf("%d answers compared; %.0f reads on the replica", compared, replicaReads)
	if replicaReads == 0 {
		t.Error("the replica served nothing")
	}
}

// shows tells whether c's nearby search at g's place finds g.
func shows(ctx context.Context, c started, g guides.NewGuide) bool {
	items, err := c.Nearby(ctx, guides.NearbyQuery{Lat: g.Lat, Lng: g.Lng, RadiusM: 1, Limit: 50})
	if err != nil {
		return false
	}
	for _, it := range items {
		if it.ID == g.ID {
			return true
		}
	}
	return false
}
