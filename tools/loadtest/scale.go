package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// scaleConfig is `loadtest scale`: the same measurements on databases of
// growing size, seeded elsewhere (`guidepost seed --guides N`).
type scaleConfig struct {
	DBs        []scaleDB     // in the order given, smallest first
	SeedTimes  string        // "100k=95s,1m=15m", or @file holding such pairs, one a line
	Warm       time.Duration // unrecorded nearby load before the warm figures
	TileRate   float64
	Rounds     int  // then this many rounds of warm nearby, cache on and off, the sizes alternating
	NoRows     bool // the rounds alone
	RoundsCold bool // each round also measures the mix cold (ScaleRound.Cold)
}

type scaleDB struct{ Label, URL string }

// runScale measures each database in turn with a server of its own, and
// writes the rows (JSON, charted by the bench report) and the "Scale"
// table (markdown). The JSON is rewritten after every size, so a size
// that fails leaves the others.
func runScale(ctx context.Context, base Config) error {
	if err := scaleChecks(&base); err != nil {
		return err
	}
	seeds, err := parseSeedTimes(base.Scale.SeedTimes)
	if err != nil {
		return err
	}
	if err := ensureBucket(ctx); err != nil {
		return fmt.Errorf("scale: the bucket: %w", err)
	}
	rep := ScaleReport{StartedAt: time.Now(), Commit: gitCommit(), Command: base.CommandLine, Host: hostInfo()}
	var errs []error
	for _, db := range base.Scale.DBs {
		if base.Scale.NoRows {
			break
		}
		base.Log.Info("scale: size", "label", db.Label)
		row := scaleOne(ctx, base, db)
		row.SeedS = seeds[db.Label]
		for _, e := range row.Errors {
			errs = append(errs, fmt.Errorf("%s: %s", db.Label, e))
		}
		rep.Rows = append(rep.Rows, row)
		rep.LoadAvg = loadAvg()
		if err := writeJSON(scaleJSONPath(&base), rep); err != nil {
			return err
		}
	}
	errs = append(errs, scaleRounds(ctx, base, &rep, func() error { return writeJSON(scaleJSONPath(&base), rep) })...)
	md := roundsMarkdown(rep.Rounds)
	if len(rep.Rows) > 0 {
		md = scaleMarkdown(rep.Rows) + md
	}
	fmt.Printf("\nScale (load average at the end %s; rows in %s)\n\n%s", rep.LoadAvg, scaleJSONPath(&base), md)
	mdPath := strings.TrimSuffix(scaleJSONPath(&base), ".json") + ".md"
	return errors.Join(append(errs, os.WriteFile(mdPath, []byte(md), 0o644))...)
}

// scaleChecks refuses to run where it would empty a Redis it does not
// own: each size's restart empties the Redis of REDIS_URL.
func scaleChecks(c *Config) error {
	if len(c.Scale.DBs) == 0 {
		return errors.New("scale: -scale-dbs is empty (label=postgres://…,…)")
	}
	u, err := url.Parse(os.Getenv("REDIS_URL"))
	if err != nil || u.Host == "" {
		return errors.New("scale: set REDIS_URL to a private Redis (scripts/scale.sh starts one): every restart empties it")
	}
	if u.Port() == "" || u.Port() == "6379" {
		return fmt.Errorf("scale: REDIS_URL %s is the shared Redis: every restart empties it; use a private one on a spare port", u.Host)
	}
	return nil
}

// parseSeedTimes reads "label=duration" pairs, from the flag or, after an
// @, from a file with one pair a line.
func parseSeedTimes(s string) (map[string]float64, error) {
	if name, ok := strings.CutPrefix(s, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		s = strings.ReplaceAll(string(b), "\n", ",")
	}
	out := map[string]float64{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		label, v, ok := strings.Cut(p, "=")
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if !ok || err != nil {
			return nil, fmt.Errorf("seed time %q: want label=duration, such as 1m=14m30s", p)
		}
		out[strings.TrimSpace(label)] = d.Seconds()
	}
	return out, nil
}

// dbFacts counts the guides and reads the database's size.
func dbFacts(ctx context.Context, dbURL string) (guides, bytes int64, err error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM guides), pg_database_size(current_database())").Scan(&guides, &bytes)
	return guides, bytes, err
}

// flushRedis empties REDIS_URL's database (private: scaleChecks).
func flushRedis(ctx context.Context) error {
	opt, err := redis.ParseURL(os.Getenv("REDIS_URL"))
	if err != nil {
		return err
	}
	c := redis.NewClient(opt)
	defer c.Close()
	return c.FlushDB(ctx).Err()
}

// vmRSS is a process's resident memory, from /proc.
func vmRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func bindScaleFlags(fs *flag.FlagSet, c *Config) {
	fs.Func("scale-dbs", "scale: label=DATABASE_URL pairs, comma-separated, smallest first (100k=postgres://…,1m=…,10m=…)", func(v string) error {
		for _, p := range strings.Split(v, ",") {
			label, u, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || label == "" || u == "" {
				return fmt.Errorf("%q: want label=postgres://…", p)
			}
			c.Scale.DBs = append(c.Scale.DBs, scaleDB{Label: label, URL: u})
		}
		return nil
	})
	fs.StringVar(&c.Scale.SeedTimes, "scale-seed-times", "", "scale: how long each seed took, label=duration pairs (1m=14m30s,…) or @file with one a line")
	fs.DurationVar(&c.Scale.Warm, "scale-warm", c.Scale.Warm, "scale: unrecorded nearby load before the warm figures")
	fs.IntVar(&c.Scale.Rounds, "scale-rounds", 0, "scale: after the sizes' rows, rounds of warm nearby on each size, cache on then off, beside PostgreSQL's own time (pg_stat_statements); the sizes alternate")
	fs.BoolVar(&c.Scale.NoRows, "scale-rounds-only", false, "scale: skip the sizes' rows and run the rounds alone")
	fs.BoolVar(&c.Scale.RoundsCold, "scale-rounds-cold", false, "scale: each round also measures the nearby mix on a fresh server with Redis emptied, from its first answer, beside PostgreSQL's own time")
	fs.Float64Var(&c.Scale.TileRate, "scale-tile-rate", c.Scale.TileRate, "scale: tiles per second, warm and cold")
	fs.StringVar(&c.ScaleJSON, "scale-json", "", "scale: its rows, which the bench report charts (default: BENCHMARKS-scale.json next to -benchmarks; the table goes beside it as .md)")
}
