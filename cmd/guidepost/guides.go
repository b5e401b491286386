package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

// The implementations the guide feature consumes, checked at compile time.
var (
	_ guides.Store     = (*gsql.Guides)(nil)
	_ guides.Store     = (*cache.Guides)(nil)
	_ cache.TileSource = (*gsql.Guides)(nil)
	_ api.GuideService = (*guides.Service)(nil)
	_ guides.MediaURLs = (*media.Service)(nil)
)

// guideSettings are the guide feature's environment variables.
type guideSettings struct {
	Cache         bool          // GUIDES_CACHE: on (default) or off
	LikePoll      time.Duration // GUIDES_CACHE_LIKE_POLL: how often recent like counts are read; lists lag likes by about this (1s)
	RefreshAfter  time.Duration // GUIDES_CACHE_REFRESH: a cached tile older than this is refreshed in the background, a backstop (30s)
	MaxAge        time.Duration // GUIDES_CACHE_MAX_AGE: never serve a tile older than this, a backstop (2m)
	RedisTimeout  time.Duration // GUIDES_CACHE_REDIS_TIMEOUT: then PostgreSQL answers instead (200ms)
	L1MB          int           // GUIDES_CACHE_L1_MB: in-process cache size (256)
	MaxTileGuides int           // GUIDES_CACHE_MAX_TILE_GUIDES: a denser tile is not cached (4000)
}

func loadGuideSettings(getenv func(string) string) (guideSettings, error) {
	s := guideSettings{Cache: true, LikePoll: time.Second, RefreshAfter: 30 * time.Second, MaxAge: 2 * time.Minute,
		RedisTimeout: 200 * time.Millisecond, L1MB: 256, MaxTileGuides: 4000}
	var errs []error
	dur := func(key string, dst *time.Duration) {
		if v := getenv(key); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				errs = append(errs, fmt.Errorf("config: %s=%q: want a positive duration such as 2s", key, v))
				return
			}
			*dst = d
		}
	}
	num := func(key string, dst *int) {
		if v := getenv(key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("config: %s=%q: want a positive integer", key, v))
				return
			}
			*dst = n
		}
	}
	switch v := getenv("GUIDES_CACHE"); v {
	case "", "on", "true", "1":
	case "off", "false", "0":
		s.Cache = false
	default:
		errs = append(errs, fmt.Errorf("config: GUIDES_CACHE=%q: want on or off", v))
	}
	dur("GUIDES_CACHE_LIKE_POLL", &s.LikePoll)
	dur("GUIDES_CACHE_REFRESH", &s.RefreshAfter)
	dur("GUIDES_CACHE_MAX_AGE", &s.MaxAge)
	dur("GUIDES_CACHE_REDIS_TIMEOUT", &s.RedisTimeout)
	num("GUIDES_CACHE_L1_MB", &s.L1MB)
	num("GUIDES_CACHE_MAX_TILE_GUIDES", &s.MaxTileGuides)
	return s, errors.Join(errs...)
}

// wireGuides builds the guide service: the PostgreSQL store, behind the
// nearby/viewport cache unless GUIDES_CACHE=off. The returned stop ends the
// cache's version feed.
func (a *app) wireGuides(ctx context.Context, deps *api.Deps, urls guides.MediaURLs) (stop func(), err error) {
	settings, err := loadGuideSettings(os.Getenv)
	if err != nil {
		return nil, err
	}
	store := gsql.NewGuides(a.db)
	var s guides.Store = store
	stop = func() {}
	if settings.Cache {
		c := cache.New(store, store, cache.Options{
			Redis: a.redis, Registerer: a.registry, Log: a.log,
			LikePoll: settings.LikePoll, RefreshAfter: settings.RefreshAfter, MaxAge: settings.MaxAge, RedisTimeout: settings.RedisTimeout,
			L1Bytes: uint64(settings.L1MB) << 20, MaxTileGuides: settings.MaxTileGuides,
		})
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		var wg sync.WaitGroup
		wg.Go(func() { c.Run(cctx) })
		stop = func() { cancel(); wg.Wait() }
		s = c
	}
	deps.Guides = guides.NewService(s, a.clock, guides.CursorKey(a.cfg.JWTSecret), urls)
	return stop, nil
}

const seedUsage = `usage: guidepost seed [--demo] [--guides N [--seed S]]

  --demo       a demo user (demo@example.com / guidepost-demo) and a few hundred
               guides around Seoul, Busan and Jeju; running it again adds nothing
  --guides N   N generated guides loaded with COPY: half clustered in Seoul,
               Busan and Jeju, the rest over South Korea, with tags
  --seed S     random seed for --guides (default 1)
`

// Demo account written by seed --demo.
const (
	demoEmail    = "demo@example.com"
	demoPassword = "guidepost-demo"
	demoName     = "Guidepost Demo"
)

func runSeed(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() { fmt.Fprint(stdout, seedUsage) }
	demo := fs.Bool("demo", false, "")
	n := fs.Int("guides", 0, "")
	seedValue := fs.Int64("seed", 1, "")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if !*demo && *n <= 0 {
		fs.Usage()
		return errors.New("seed: say --demo or --guides N")
	}
	db, err := openDBOnly(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if *demo {
		users := gsql.NewUsers(db)
		svc := auth.NewService(users, auth.NewTokens(cfg.JWTSecret, cfg.TokenTTL, guidepost.SystemClock{}), guidepost.SystemClock{})
		_, err := svc.Signup(ctx, auth.SignupInput{Email: demoEmail, Password: demoPassword, DisplayName: demoName})
		if err != nil && guidepost.ErrorCode(err) != guidepost.ECONFLICT {
			return fmt.Errorf("seed: demo user: %w", err)
		}
		u, err := users.UserByEmail(ctx, demoEmail)
		if err != nil {
			return fmt.Errorf("seed: demo user: %w", err)
		}
		added, err := gsql.SeedDemoGuides(ctx, db, u.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "demo: user %s (%s / %s); %d guides added, %d already there\n",
			u.ID, demoEmail, demoPassword, added, gsql.DemoGuideCount-added)
		if err := seedDemoPhotos(ctx, cfg, u.ID, stdout); err != nil {
			return err
		}
	}
	if *n > 0 {
		start := time.Now()
		err := gsql.SeedGuides(ctx, db, *n, *seedValue, func(done int) {
			log.Info("seeding guides", "done", done, "of", *n, "took", time.Since(start).Round(time.Millisecond))
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "seeded %d guides in %s\n", *n, time.Since(start).Round(time.Millisecond))
	}
	return nil
}
