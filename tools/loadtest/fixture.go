package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// fixture is the state a run needs before its load starts. bench builds one
// and shares it between scenarios: users and guides live in the database.
type fixture struct {
	users      []*user
	pool       []string // guide ids to read, popularity by zipf
	zipf       *zipf
	photos     []*photo
	seeded     int
	discovered int
	notes      []string
}

type needs struct{ guides, photos bool }

const autoSeedGuides = 100 // reads need targets: seeded when the database has none

// buildFixture generates photos, signs users up and gathers guides.
func buildFixture(ctx context.Context, cfg *Config, n needs, c *client) (*fixture, error) {
	fx := &fixture{}
	if n.photos {
		t := time.Now()
		fx.photos = makePhotos(cfg.PhotoSizes)
		cfg.Log.Info("photos generated", "sizes", photoSizes(fx.photos), "took", time.Since(t).Round(time.Millisecond))
	}
	users, err := signupUsers(ctx, c, cfg.Users, 16, cfg.Log)
	if err != nil {
		return nil, err
	}
	fx.users = users
	if cfg.SeedGuides > 0 {
		ids, err := seedGuides(ctx, c, users, cfg.SeedGuides, 8, "guidepost-load seed")
		if err != nil {
			return nil, err
		}
		fx.pool, fx.seeded = ids, len(ids)
		cfg.Log.Info("guides seeded", "guides", len(ids))
	}
	if n.guides {
		if err := fx.gatherPool(ctx, cfg, c); err != nil {
			return nil, err
		}
	}
	return fx, nil
}

// gatherPool adds existing guides to the read pool, seeding some if the
// database has none, then ranks them for zipf popularity.
func (fx *fixture) gatherPool(ctx context.Context, cfg *Config, c *client) error {
	seen := map[string]bool{}
	for _, id := range fx.pool {
		seen[id] = true
	}
	for _, id := range discoverGuides(ctx, c, fx.users[0], 200) {
		if !seen[id] {
			seen[id] = true
			fx.pool = append(fx.pool, id)
			fx.discovered++
		}
	}
	if len(fx.pool) == 0 {
		ids, err := seedGuides(ctx, c, fx.users, autoSeedGuides, 8, "guidepost-load seed")
		if err != nil {
			return err
		}
		fx.pool, fx.seeded = ids, len(ids)
		fx.notes = append(fx.notes, fmt.Sprintf("no guides found: seeded %d (use -seed-guides)", len(ids)))
		cfg.Log.Warn("no guides to read: seeded some", "guides", len(ids))
	}
	// Shuffle so popularity is not tied to creation order.
	rand.Shuffle(len(fx.pool), func(i, j int) { fx.pool[i], fx.pool[j] = fx.pool[j], fx.pool[i] })
	fx.zipf = newZipf(len(fx.pool), 1.1)
	return nil
}

func photoSizes(ps []*photo) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = len(p.jpeg)
	}
	return out
}
