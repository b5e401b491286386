package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/internal/seedgen"
	gsql "github.com/guidepost/guidepost/sql"
)

const seedUsage = `usage: guidepost seed [--demo] [--guides N [--seed S]]

  --demo       a demo user (demo@example.com / guidepost-demo) and a few hundred
               guides around Seoul, Busan and Jeju; running it again adds nothing
  --guides N   N generated guides loaded with COPY: half clustered in Seoul,
               Busan and Jeju, the rest over South Korea, with tags and
               bodies of Korean and English words for text search; every
               density grows with N. One transaction: into an empty table
               the indexes are built once at the end, and readers of the
               guides wait until it commits. The closing vacuum must set
               the pages all-visible: while another session holds an older
               snapshot it sets none; the seed then names that session,
               vacuums again (5 tries, 30 s apart) and fails if it never can
  --seed S     random seed for --guides (default 1)
`

// A vacuum that another session's old snapshot kept from setting pages
// all-visible is tried again this many times in all, this long apart: a
// benchmark's or a psql's transaction usually ends within a minute or
// two. Each vacuum of 10 M guides takes ~20 s.
const (
	vacuumTries     = 5
	vacuumRetryWait = 30 * time.Second
)

// Demo account written by seed --demo.
const (
	demoEmail    = "demo@example.com"
	demoPassword = "guidepost-demo"
	demoName     = "Guidepost Demo"
)

func seed(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
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
	db, err := gsql.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if *demo {
		users := gsql.NewUsers(db)
		svc := signupService(db, cfg)
		_, err := svc.Signup(ctx, auth.SignupInput{Email: demoEmail, Password: demoPassword, DisplayName: demoName})
		if err != nil && guidepost.ErrorCode(err) != guidepost.ECONFLICT {
			return fmt.Errorf("seed: demo user: %w", err)
		}
		u, err := users.UserByEmail(ctx, demoEmail)
		if err != nil {
			return fmt.Errorf("seed: demo user: %w", err)
		}
		added, err := seedgen.DemoGuides(ctx, db, u.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "demo: user %s (%s / %s); %d guides added, %d already there\n",
			u.ID, demoEmail, demoPassword, added, seedgen.DemoGuideCount-added)
		if err := seedDemoPhotos(ctx, cfg, u.ID, stdout); err != nil {
			return err
		}
	}
	if *n > 0 {
		start := time.Now()
		err := seedgen.Guides(ctx, db, *n, *seedValue, func(done int) {
			log.Info("seeding guides", "done", done, "of", *n, "took", time.Since(start).Round(time.Millisecond))
		})
		if err != nil {
			return err
		}
		if err := gsql.EnsureGuidesVacuumed(ctx, db, log, vacuumTries, vacuumRetryWait); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		fmt.Fprintf(stdout, "seeded %d guides in %s\n", *n, time.Since(start).Round(time.Millisecond))
	}
	return nil
}
